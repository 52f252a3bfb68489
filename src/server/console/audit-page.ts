/**
 * The audit page, `/ui/audit`: the append-only log the store keeps (what
 * `GET /audit` reads), filtered by tool, principal, outcome and time, paged
 * forward by sequence number. Each row links to its call's trace: every
 * record of that call, request to outcome.
 * @module
 */
import type { AuditRecord } from '../../store/types.js';
import type { PageEnv, PageResult } from './page.js';
import { h, pretty, queryString, type Safe } from './html.js';
import { callSpans, type SpanLine } from './trace-spans.js';

/** Rows on one page. */
const PAGE_ROWS = 50;
/** Records read per store query, and at most per page (a narrow filter over a long log stops there and offers the next page). */
const BATCH = 500;
const SCAN_MAX = 20_000;

/** The outcomes the filter offers: record kinds by prefix or exact name. */
const OUTCOMES = ['call.ok', 'call.error', 'call.pending_approval', 'approval.approved', 'approval.denied', 'approval.void', 'approval.expired'] as const;

interface AuditFilter {
  tool?: string;
  callId?: string;
  principal?: string;
  outcome?: string;
  from?: string;
  to?: string;
  after: number;
}

function readFilter(url: URL): AuditFilter {
  const p = url.searchParams;
  const text = (k: string) => {
    const v = p.get(k)?.trim();
    return v ? v : undefined;
  };
  const after = Number(p.get('after') ?? '0');
  const f: AuditFilter = { after: Number.isSafeInteger(after) && after >= 0 ? after : 0 };
  for (const [k, key] of [['tool', 'tool'], ['call_id', 'callId'], ['principal', 'principal'], ['outcome', 'outcome'], ['from', 'from'], ['to', 'to']] as const) {
    const v = text(k);
    if (v !== undefined) f[key] = v;
  }
  return f;
}

/** A datetime-local value (or a date) as epoch ms, or undefined when empty or unreadable. */
const timeOf = (v: string | undefined): number | undefined => {
  if (v === undefined) return undefined;
  const t = Date.parse(/Z|[+-]\d\d:\d\d$/.test(v) ? v : `${v}Z`);
  return Number.isNaN(t) ? undefined : t;
};

function keep(f: AuditFilter, r: AuditRecord): boolean {
  if (f.principal !== undefined && r.actor !== f.principal) return false;
  if (f.outcome !== undefined && r.kind !== f.outcome) return false;
  const at = Date.parse(r.at);
  const from = timeOf(f.from);
  const to = timeOf(f.to);
  return (from === undefined || at >= from) && (to === undefined || at <= to);
}

function row(r: AuditRecord): Safe {
  const cls = r.kind.endsWith('error') || r.kind.endsWith('denied') || r.kind.endsWith('void') ? 'bad' : r.kind.endsWith('ok') || r.kind.endsWith('approved') ? 'ok' : '';
  return h`<tr><td data-label="Seq">${r.seq}</td><td data-label="At"><time datetime="${r.at}">${r.at.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time></td><td data-label="What"><span class="${cls}">${r.kind}</span></td>
<td data-label="Tool">${r.tool ? h`<a href="/ui/tools/${encodeURIComponent(r.tool)}${r.persona ? `?persona=${encodeURIComponent(r.persona)}` : ''}">${r.tool}</a>` : '–'}</td><td data-label="Principal">${r.actor ?? '–'}</td><td data-label="Persona">${r.persona ?? '–'}</td>
<td data-label="Trace">${r.callId ? h`<a href="/ui/audit?call_id=${encodeURIComponent(r.callId)}" aria-label="Trace of call ${r.callId}">${r.callId}</a>` : '–'}</td>
<td data-label="Detail"><details><summary>detail</summary><pre>${pretty(r.detail)}</pre></details></td></tr>`;
}

/** The spans of a call, as a table. */
function spanTable(spans: readonly SpanLine[], kept: boolean): Safe {
  if (!kept) return h`<p class="muted">This server writes no trace file; the records below are the call's trace.</p>`;
  if (spans.length === 0) return h`<p class="muted">No spans of this call in the trace file yet (spans are written in batches: reload in a few seconds).</p>`;
  return h`<h2>Spans</h2><div class="scroll"><table class="stack"><thead><tr><th scope="col">Span</th><th scope="col">Start</th><th scope="col">Duration</th><th scope="col">Status</th><th scope="col">Trace id</th><th scope="col">Attributes</th></tr></thead><tbody>${spans.map(
    (s) => h`<tr><td data-label="Span">${s.parentSpanId ? '↳ ' : ''}${s.name}</td><td data-label="Start">${s.start}</td><td data-label="Duration">${s.durationMs} ms</td><td data-label="Status">${s.status?.code === 2 ? h`<span class="bad">error${s.status.message ? `: ${s.status.message}` : ''}</span>` : 'ok'}</td>
<td data-label="Trace id"><code>${s.traceId}</code></td><td data-label="Attributes"><details><summary>${Object.keys(s.attributes ?? {}).length} attributes</summary><pre>${pretty(s.attributes)}</pre></details></td></tr>`,
  )}</tbody></table></div>`;
}

/** `GET /ui/audit`. */
export async function auditPage(env: PageEnv): Promise<PageResult> {
  const runtime = env.ctx.runtime;
  if (!runtime) return { title: 'Audit', status: 501, body: h`<h1>Audit</h1><p>This server has no runtime, so it keeps no audit log.</p>` };
  const f = readFilter(env.url);
  const rows: AuditRecord[] = [];
  let cursor = f.after;
  let exhausted = false;
  let scanned = 0;
  await runtime.flush();
  while (rows.length < PAGE_ROWS && scanned < SCAN_MAX) {
    const batch = await runtime.store.listAudit({ afterSeq: cursor, limit: BATCH, ...(f.tool ? { tool: f.tool } : {}), ...(f.callId ? { callId: f.callId } : {}) });
    for (const r of batch) {
      cursor = r.seq;
      scanned++;
      if (keep(f, r)) rows.push(r);
      if (rows.length === PAGE_ROWS) break;
    }
    if (batch.length < BATCH && rows.length < PAGE_ROWS) {
      exhausted = true;
      break;
    }
  }
  const params = [...env.url.searchParams].filter(([k]) => k !== 'after');
  const value = (k: string) => env.url.searchParams.get(k) ?? '';
  const spans = f.callId !== undefined && env.options.traceFile !== undefined ? await callSpans(env.options.traceFile, f.callId) : [];
  const trace = f.callId !== undefined ? h`<p class="notice">The trace of call <code>${f.callId}</code>: every record of it, request to outcome, and its spans. <a href="/ui/audit">Whole log</a></p>${spanTable(spans, env.options.traceFile !== undefined)}` : '';
  const body = h`<h1>Audit log</h1>${trace}
<form class="filters" method="get" action="/ui/audit">
<label>Tool<input name="tool" value="${value('tool')}"></label><label>Principal<input name="principal" value="${value('principal')}"></label>
<label>Outcome<select name="outcome"><option value="">any</option>${OUTCOMES.map((o) => h`<option${o === f.outcome ? h` selected` : ''}>${o}</option>`)}</select></label>
<label>From (UTC)<input type="datetime-local" name="from" value="${value('from')}"></label><label>To (UTC)<input type="datetime-local" name="to" value="${value('to')}"></label>
${f.callId ? h`<input type="hidden" name="call_id" value="${f.callId}">` : ''}<button type="submit">Filter</button> <a href="/ui/audit">Clear</a></form>
<p class="muted">Oldest first${f.after > 0 ? `, after record ${f.after}` : ''}; ${rows.length} shown.</p>
${rows.length ? h`<div class="scroll"><table class="stack"><thead><tr><th scope="col">Seq</th><th scope="col">At</th><th scope="col">What</th><th scope="col">Tool</th><th scope="col">Principal</th><th scope="col">Persona</th><th scope="col">Trace (call)</th><th scope="col">Detail</th></tr></thead><tbody>${rows.map(row)}</tbody></table></div>` : h`<p>No records match.</p>`}
<nav class="pager" aria-label="Pages">${f.after > 0 ? h`<a href="/ui/audit${queryString(params)}">First page</a>` : ''}${!exhausted ? h`<a href="/ui/audit${queryString([...params, ['after', String(cursor)]])}" rel="next">Next page</a>` : ''}</nav>`;
  return { title: 'Audit', body };
}
