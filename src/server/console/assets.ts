/**
 * The console's only assets, a stylesheet and a small script, shipped as
 * strings inside the package (no CDN, no front-end build) and served under
 * `/ui/assets/` with a content hash in the name, so they can be cached for
 * good. Pages work without the script: it adds live updates to the
 * approval queue (server-sent events) and nothing a form needs.
 * @module
 */
import { createHash } from 'node:crypto';

const CSS = `
:root{--fg:#1b1f24;--muted:#4a5260;--bg:#fff;--panel:#f4f6f8;--line:#c9d0d8;--accent:#0b57d0;--bad:#a4161a;--warn:#7a4b00;--ok:#1d6b2f;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
*{box-sizing:border-box}body{margin:0;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible,summary:focus-visible{outline:3px solid #f4b400;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px 8px;z-index:9}
header{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:center;padding:.6rem 1rem;background:#102a43;color:#fff}
header a{color:#fff;text-decoration:none;padding:.2rem .1rem}header a[aria-current=page]{border-bottom:3px solid #f4b400}
header .who{margin-left:auto;font-size:.9rem}header .who form{display:inline}
header button{background:transparent;color:#fff;border:1px solid #fff;border-radius:4px;padding:.1rem .5rem;cursor:pointer}
main{padding:1rem;max-width:1200px;margin:0 auto}h1{font-size:1.5rem;margin:.2rem 0 1rem}h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
form.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:flex-end;background:var(--panel);padding:.75rem;border-radius:6px}
label{display:flex;flex-direction:column;font-size:.85rem;color:var(--muted);gap:.15rem}
input,select,textarea{font:inherit;color:var(--fg);padding:.3rem .4rem;border:1px solid #6b7480;border-radius:4px;background:#fff}
input[type=search]{min-width:16rem}
button,.button{font:inherit;padding:.35rem .9rem;border-radius:4px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}
button.secondary{background:#fff;color:var(--accent)}button.danger{background:var(--bad);border-color:var(--bad)}
table{border-collapse:collapse;width:100%;font-size:.93rem}th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--panel)}.scroll{overflow-x:auto}
.tag{display:inline-block;padding:0 .4rem;border-radius:3px;background:#e3e8ee;font-size:.82rem;margin:0 .2rem .2rem 0}
.risk-high,.risk-critical,.bad{color:var(--bad);font-weight:600}.warn{color:var(--warn);font-weight:600}.ok{color:var(--ok);font-weight:600}
.derived{font-style:italic}.derived::after{content:" (derived)";font-size:.78rem;color:var(--muted);font-style:normal}
.muted{color:var(--muted)}.counts{display:flex;flex-wrap:wrap;gap:.3rem 1rem;margin:.5rem 0;font-size:.9rem}
pre{background:var(--panel);padding:.6rem;border-radius:4px;overflow-x:auto;font-size:.85rem;max-height:28rem}
.card{border:1px solid var(--line);border-radius:6px;padding:.75rem;margin:.75rem 0}
.diag{border-left:4px solid var(--bad);padding:.4rem .6rem;margin:.4rem 0;background:#fdf0f0}
.notice{border-left:4px solid var(--warn);padding:.4rem .6rem;background:#fff6e5}
.pager{display:flex;gap:1rem;margin:.75rem 0}
dl.kv{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.2rem 1rem}dl.kv dt{font-weight:600}dl.kv dd{margin:0;min-width:0;overflow-wrap:anywhere}
code{overflow-wrap:anywhere}td{overflow-wrap:anywhere}
.login{max-width:28rem;margin:3rem auto}.login form{display:flex;flex-direction:column;gap:.75rem}
.error{color:var(--bad)}
@media (max-width:640px){main{padding:.6rem}input[type=search]{min-width:0;width:100%}form.filters label{flex:1 1 45%}dl.kv{grid-template-columns:1fr}
 table.stack thead{display:none}table.stack tr{display:block;border-bottom:2px solid var(--line);padding:.3rem 0}table.stack td{display:block;border:0;padding:.15rem .3rem}
 table.stack td[data-label]::before{content:attr(data-label) ": ";font-weight:600}}
`;

const JS = `
(function(){
  var queue=document.getElementById('queue');
  if(queue&&window.EventSource){
    var status=document.getElementById('live');
    var es=new EventSource(queue.getAttribute('data-events'));
    es.addEventListener('approvals',function(){
      var active=document.activeElement;
      if(active&&queue.contains(active)&&(active.tagName==='TEXTAREA'||active.tagName==='INPUT')&&active.value){if(status)status.textContent='New requests arrived: reload to see them.';return;}
      fetch(queue.getAttribute('data-fragment'),{credentials:'same-origin'}).then(function(r){return r.ok?r.text():null}).then(function(t){if(t!==null){queue.innerHTML=t;if(status)status.textContent='Queue updated '+new Date().toLocaleTimeString();}});
    });
    es.onerror=function(){if(status)status.textContent='Live updates paused; reconnecting.';};
  }
})();
`;

/** One asset: its text, type and the content-hashed path it is served at. */
export interface Asset {
  readonly path: string;
  readonly type: string;
  readonly body: string;
}

const asset = (name: string, ext: string, type: string, body: string): Asset => ({
  path: `/ui/assets/${name}.${createHash('sha256').update(body).digest('hex').slice(0, 12)}.${ext}`,
  type,
  body,
});

/** The stylesheet and the script. */
export const ASSETS = { css: asset('console', 'css', 'text/css; charset=utf-8', CSS), js: asset('console', 'js', 'text/javascript; charset=utf-8', JS) } as const;
