/**
 * Health and sources, `/ui/health`: the serving snapshot and the last
 * reload (a broken edit shows its located diagnostics, with the source
 * line, and says the last good snapshot is still serving), what the last
 * reloads changed, the layers and the files each one brought, the MCP
 * servers and their state, jobs with their compatibility and skills. The
 * detail `GET /health` shows to those allowed `health.detail`.
 * @module
 */
import { readFileSync, statSync } from 'node:fs';
import type { Diagnostic } from '../../model/diagnostics.js';
import { layerPath } from '../../load/loader.js';
import { summarizeJobs } from '../../registry/summary.js';
import { jobsWithHealth } from '../health-views.js';
import type { PageEnv, PageResult } from './page.js';
import { h, type Safe } from './html.js';

/** The source line a diagnostic points at, with a caret, read from the file as it is now (small files only). */
function excerpt(d: Diagnostic): Safe {
  if (d.file === undefined || d.line === undefined) return h``;
  try {
    if (statSync(d.file).size > 2 * 1024 * 1024) return h``;
    const line = readFileSync(d.file, 'utf8').split(/\r?\n/)[d.line - 1];
    if (line === undefined) return h``;
    const gutter = `${d.line} | `;
    return h`<pre aria-label="Source line ${d.line}">${gutter}${line}\n${' '.repeat(gutter.length + Math.max(0, (d.column ?? 1) - 1))}^</pre>`;
  } catch {
    return h``;
  }
}

/** One diagnostic, located. */
export function diagnosticBlock(d: Diagnostic): Safe {
  const where = d.file ? `${d.file}${d.line !== undefined ? `:${d.line}:${d.column ?? 1}` : ''}` : 'toolcap';
  return h`<div class="diag"><code>${where}</code>: ${d.severity} <strong>${d.code}</strong>: ${d.message}${excerpt(d)}${d.hint ? h`<div class="muted">hint: ${d.hint}</div>` : ''}</div>`;
}

/** `GET /ui/health`. */
export function healthPage(env: PageEnv): PageResult {
  const { ctx, options } = env;
  const status = ctx.registry.status();
  const snap = status.version === 0 ? undefined : ctx.registry.snapshot();
  const state = status.version === 0 ? 'starting' : status.ok ? 'ok' : 'degraded';
  const err = status.lastError;
  const errors = err?.diagnostics.filter((d) => d.severity === 'error') ?? [];
  const lastReload = err
    ? h`<section aria-labelledby="reload"><h2 id="reload">Last reload: failed at ${err.at}</h2>
<p class="notice" role="alert">The last reload failed${err.exception ? h` (${err.exception})` : err.unreadable ? ' (a path cannot be read)' : h` with ${errors.length} error${errors.length === 1 ? '' : 's'}`}; ${snap ? h`the last good snapshot, version ${snap.version} built at ${snap.builtAt}, is still serving.` : 'no snapshot is serving yet.'} Fix the file and save again.</p>
${(errors.length ? errors : err.diagnostics).map(diagnosticBlock)}</section>`
    : h`<section aria-labelledby="reload"><h2 id="reload">Last reload: ok</h2><p>Serving version ${status.version}${snap ? `, built at ${snap.builtAt}` : ''}; ${snap ? `${snap.diagnostics.filter((d) => d.severity === 'warning').length} warnings` : ''}.</p></section>`;

  const files = snap?.files() ?? [];
  const layers = options.layers?.() ?? [];
  const layerList = layers.map((l, i) => {
    const path = layerPath(l);
    const own = files.filter((f) => f.file === path || f.file.startsWith(path.endsWith('/') ? path : `${path}/`));
    return h`<li><strong>Layer ${i}</strong> <code>${path}</code>${typeof l === 'object' && l.persona ? ` (persona ${l.persona})` : ''}: ${own.length} file${own.length === 1 ? '' : 's'}
${own.length ? h`<details><summary>files</summary><ul>${own.map((f) => h`<li><code>${f.file}</code> (${f.dialect})</li>`)}</ul></details>` : ''}</li>`;
  });

  const diffs = env.history.diffs();
  const failures = env.history.reloads().filter((r) => r.kind === 'failed');
  const mcp = options.mcpServers?.() ?? [];
  const jobs = snap ? jobsWithHealth(summarizeJobs(snap), snap, ctx.runtime) : [];

  const body = h`<h1>Health and sources</h1>
<p>Status <strong class="${state === 'ok' ? 'ok' : 'bad'}">${state}</strong> · serving version ${status.version} · ${status.watching ? 'watching the files: saved edits go live' : 'not watching'}${status.pending ? ' · a reload is waiting' : ''}${status.building ? ' · building' : ''}</p>
${lastReload}
<h2>Changes in the last reloads</h2>
${diffs.length ? h`<ul>${diffs.map((d) => h`<li>${d.record.at}: version ${d.fromVersion} → ${d.record.version}${d.record.changedFiles.length ? h` (${d.record.changedFiles.join(', ')})` : ''}: ${d.summary.added} added, ${d.summary.removed} removed, ${d.summary.changed} changed (${d.summary.escalations} escalations, ${d.summary.relaxations} relaxations, ${d.summary.neutral} neutral)${d.summary.failing ? h`, <span class="bad">${d.summary.failing} failing the diff</span>` : ''}
${d.tools.length ? h`<ul>${d.tools.slice(0, 50).map((t) => h`<li><a href="/ui/tools/${encodeURIComponent(t.key.split('@')[0] ?? t.key)}">${t.key}</a>: ${t.status}${t.class ? `, ${t.class}` : ''}</li>`)}</ul>` : ''}</li>`)}</ul>` : h`<p>No reload has changed the catalog since the server started.</p>`}
${failures.length ? h`<p>Failed reloads since start: ${failures.map((f) => h`${f.at} (${f.diagnostics.filter((d) => d.severity === 'error').length} errors) `)}</p>` : ''}
<h2>Layers and files</h2>
${layers.length ? h`<ol class="plain">${layerList}</ol>` : h`<p>${files.length} files loaded.</p>`}
<h2>MCP servers</h2>
${mcp.length ? h`<div class="scroll"><table class="stack"><thead><tr><th scope="col">Server</th><th scope="col">State</th><th scope="col">Tools</th><th scope="col">Last error</th><th scope="col">Next retry</th></tr></thead><tbody>${mcp.map(
    (s) => h`<tr><td data-label="Server">${s.server}</td><td data-label="State"><span class="${s.state === 'up' ? 'ok' : 'bad'}">${s.state}</span></td><td data-label="Tools">${s.tools}</td><td data-label="Last error">${s.lastError ?? '–'}</td><td data-label="Next retry">${s.backoffUntil ? new Date(s.backoffUntil).toISOString() : '–'}</td></tr>`,
  )}</tbody></table></div>` : h`<p>No MCP servers are connected.</p>`}
<h2>Jobs</h2>
${jobs.length ? h`<div class="scroll"><table class="stack"><thead><tr><th scope="col">Job</th><th scope="col">Personas</th><th scope="col">Requires</th><th scope="col">Compatible</th><th scope="col">Health</th></tr></thead><tbody>${jobs.map(
    (j) => h`<tr><td data-label="Job">${j.title ?? j.name}</td><td data-label="Personas">${j.personas.join(', ') || 'any'}</td><td data-label="Requires">${[...j.skills.map((s) => `skill ${s}`), ...j.tools].join(', ') || '–'}</td>
<td data-label="Compatible">${j.compatible ? h`<span class="ok">yes</span>` : h`<span class="bad">no</span><ul>${j.problems.map((p) => h`<li>${p.code}: ${p.message}</li>`)}</ul>`}</td><td data-label="Health">${j.health.status}</td></tr>`,
  )}</tbody></table></div>` : h`<p>No jobs declared.</p>`}
<h2>Skills</h2>
${snap?.skills.length ? h`<ul>${snap.skills.map((s) => {
    const missing = (s.tools ?? []).filter((t) => !snap.byName.has(t));
    return h`<li><strong>${s.name}</strong>: ${[...(s.tools ?? []).map((t) => `tool ${t}`), ...(s.capabilities ?? []).map((c) => `capability ${c}`)].join(', ') || 'requires nothing'}${missing.length ? h` · <span class="bad">not compatible: no tool ${missing.join(', ')}</span>` : h` · <span class="ok">compatible</span>`}</li>`;
  })}</ul>` : h`<p>No skills declared.</p>`}`;
  return { title: 'Health and sources', body };
}
