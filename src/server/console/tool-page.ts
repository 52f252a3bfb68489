/**
 * The tool page, `/ui/tools/{name}?persona=`: everything the manifest says,
 * declared versus derived (and why), where each field was set (file, line,
 * layer, the override chain), the schemas as tables, the providers with
 * their observed health, observed-versus-declared flags, honesty findings,
 * the content hash, and what the last reloads changed, classified as
 * `toolcap diff` classifies it. It reads what `GET /tools/{name}` reads.
 * @module
 */
import { toolHash } from '../../model/hash.js';
import type { Tool } from '../../model/schema.js';
import { getTool } from '../../query/views.js';
import { onePersona } from '../catalog-params.js';
import { scopedQuery } from '../personas.js';
import { ApiProblem } from '../problem.js';
import type { PageEnv, PageResult } from './page.js';
import { h, pretty, type Safe } from './html.js';
import { fieldRows, observedFlags } from './tool-fields.js';

const show = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** A JSON Schema's properties as a table, the whole schema below it. */
function schemaTable(title: string, id: string, schema: unknown): Safe {
  if (schema === undefined) return h`<h2 id="${id}">${title}</h2><p class="muted">Not declared.</p>`;
  const s = schema as { properties?: Record<string, { type?: unknown; description?: string; enum?: unknown[]; default?: unknown }>; required?: string[] };
  const props = Object.entries(s.properties ?? {});
  const required = new Set(s.required ?? []);
  const table = props.length
    ? h`<div class="scroll"><table class="stack"><thead><tr><th scope="col">Parameter</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">Description</th></tr></thead><tbody>${props.map(
        ([name, p]) =>
          h`<tr><td data-label="Parameter"><code>${name}</code></td><td data-label="Type">${show(p.type ?? 'any')}${p.enum ? h` (one of ${p.enum.map(show).join(', ')})` : ''}${p.default !== undefined ? h`, default ${show(p.default)}` : ''}</td><td data-label="Required">${required.has(name) ? 'yes' : 'no'}</td><td data-label="Description">${p.description ?? ''}</td></tr>`,
      )}</tbody></table></div>`
    : h`<p class="muted">No named properties.</p>`;
  return h`<h2 id="${id}">${title}</h2>${table}<details><summary>${title} as JSON Schema</summary><pre>${pretty(schema)}</pre></details>`;
}

function providersSection(env: PageEnv, tool: Tool, health: { status: string; successRate?: number; p50Ms?: number; p95Ms?: number; calls?: number; lastSuccessfulProvider?: { provider: string; at: string }; reason?: string }): Safe {
  const observed = env.ctx.runtime?.health.providers(tool.name) ?? [];
  const last = env.ctx.runtime?.health.lastSuccess(tool.name);
  const declared = [...(tool.providers ?? [])].sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0));
  const now = Date.now();
  const rows = declared.map((p) => {
    const o = observed.find((x) => x.provider === p.name);
    const backoff = o && o.backoffUntil > now ? h`<span class="warn">backing off until ${new Date(o.backoffUntil).toISOString()}</span>` : h`<span>not backing off</span>`;
    return h`<tr><td data-label="Provider">${p.name}</td><td data-label="Priority">${p.priority ?? 0}</td><td data-label="Calls">${o?.calls ?? 0}</td>
<td data-label="Success rate">${o?.successRate == null ? '–' : `${Math.round(o.successRate * 100)}%`}</td><td data-label="Backoff">${backoff}${o?.consecutiveFailures ? h` · ${o.consecutiveFailures} failures in a row` : ''}</td>
<td data-label="Last outcome">${o?.lastOutcome ? `${o.lastOutcome.ok ? 'ok' : (o.lastOutcome.errorCode ?? 'error')} at ${new Date(o.lastOutcome.at).toISOString()}` : '–'}</td>
<td data-label="Check">${o?.check ? (o.check.healthy ? 'healthy' : `unhealthy: ${o.check.reason ?? ''}`) : '–'}</td></tr>`;
  });
  const flags = observedFlags(tool, health);
  return h`<h2 id="providers">Providers and health</h2>
<p>Status <strong class="${health.status === 'ok' ? 'ok' : health.status === 'unknown' ? '' : 'bad'}">${health.status}</strong>${health.reason ? h` (${health.reason})` : ''} · success rate ${health.successRate === undefined ? '–' : `${Math.round(health.successRate * 100)}%`} · p50 ${health.p50Ms ?? '–'} ms · p95 ${health.p95Ms ?? '–'} ms · ${health.calls ?? 0} calls observed · last good: ${last ? `${last.provider} at ${new Date(last.at).toISOString()}` : 'none yet'}</p>
${declared.length ? h`<div class="scroll"><table class="stack"><thead><tr><th scope="col">Provider</th><th scope="col">Priority</th><th scope="col">Calls</th><th scope="col">Success rate</th><th scope="col">Backoff</th><th scope="col">Last outcome</th><th scope="col">Check</th></tr></thead><tbody>${rows}</tbody></table></div>` : h`<p class="muted">No providers declared.</p>`}
<h3>Observed versus declared</h3><p>Declared latency: p50 ${tool.latency?.p50Ms ?? '–'} ms, p95 ${tool.latency?.p95Ms ?? '–'} ms; cost lane ${tool.cost?.lane ?? '–'}.</p>
${flags.length ? h`<ul>${flags.map((f) => h`<li class="warn">${f}</li>`)}</ul>` : h`<p>No observation contradicts the manifest${health.calls ? '' : ' (nothing observed yet)'}.</p>`}`;
}

/** `GET /ui/tools/{name}`. */
export function toolPage(env: PageEnv): PageResult {
  const { ctx, user, url, c } = env;
  const name = c.req.param('name') ?? '';
  const snap = ctx.registry.snapshot();
  let persona: string | undefined;
  try {
    const scoped = scopedQuery(ctx.registry, ctx.runtime, user.principal, new URLSearchParams(url.searchParams.has('persona') ? [['persona', url.searchParams.get('persona') ?? '']] : []), false);
    persona = onePersona(scoped ?? new URLSearchParams(url.searchParams.has('persona') ? [['persona', url.searchParams.get('persona') ?? '']] : []));
  } catch (error) {
    if (error instanceof ApiProblem) return { title: 'Not found', status: error.body.status, body: h`<h1>${name}</h1><p class="diag" role="alert">${error.body.detail}</p>` };
    throw error;
  }
  const found = getTool(snap, name, persona, ctx.health);
  if (!found) return { title: 'Not found', status: 404, body: h`<h1>${name}</h1><p class="diag" role="alert">No tool named “${name}” that you can see.</p><p><a href="/">Back to the catalog</a></p>` };
  const { tool, key } = found;
  const origins = snap.provenance(key) ?? [];
  const rows = fieldRows(snap, key, tool, origins);
  const files = new Set(origins.map((o) => o.file));
  const findings = snap.diagnostics.filter((d) => d.file !== undefined && files.has(d.file) && origins.some((o) => d.file === o.file && (d.pointer ?? '').startsWith(`${o.pointer}/`)));
  const honesty = findings.filter((d) => d.code.startsWith('EVIDENCE_'));
  const other = findings.filter((d) => !d.code.startsWith('EVIDENCE_'));
  const history = env.history.forTool(key);

  const body = h`<h1>${tool.title ?? tool.name} <span class="muted">${tool.title ? tool.name : ''}${tool.version ? ` ${tool.version}` : ''}</span></h1>
<p>${tool.description ?? ''}</p>
<dl class="kv"><dt>Content hash</dt><dd><code>${toolHash(tool)}</code></dd><dt>Merge key</dt><dd><code>${key}</code></dd>
<dt>Personas</dt><dd>${found.personas.length ? found.personas.join(', ') : 'shared'}</dd><dt>Enabled</dt><dd>${tool.enabled === false ? 'no' : 'yes'}</dd>
<dt>Capabilities</dt><dd>${found.capabilities.join(', ') || '–'}</dd><dt>Auth scopes</dt><dd>${found.authScopes.join(', ') || '–'}</dd></dl>
<nav aria-label="On this page"><p><a href="#fields">Declared and derived</a> · <a href="#provenance">Provenance</a> · <a href="#input">Input</a> · <a href="#output">Output</a> · <a href="#providers">Providers</a> · <a href="#honesty">Honesty</a> · <a href="#history">Changes</a></p></nav>
<h2 id="fields">Declared and derived</h2>
<div class="scroll"><table class="stack"><thead><tr><th scope="col">Field</th><th scope="col">Value</th><th scope="col">Declared or derived</th><th scope="col">Set by</th></tr></thead><tbody>${rows.map(
    (r) => h`<tr><td data-label="Field"><code>${r.path}</code></td><td data-label="Value"><span class="${r.status === 'declared' ? '' : 'derived'}">${show(r.value)}</span></td>
<td data-label="Declared or derived">${r.status === 'declared' ? 'declared' : h`<strong>derived</strong> (${r.status === 'assumed' ? 'assumed' : 'translated'}): ${r.why}`}</td>
<td data-label="Set by">${r.place ? h`<code>${r.place}</code>` : r.status === 'assumed' ? 'toolcap (no layer)' : '–'}${r.layer && r.status !== 'assumed' ? h` <span class="muted">layer ${r.layer.index} (${r.layer.source})</span>` : ''}</td></tr>`,
  )}</tbody></table></div>
<h2 id="provenance">Provenance: the override chain, oldest first</h2>
<ol>${origins.map((o, i) => h`<li><code>${o.file}:${o.line ?? '?'}:${o.column ?? '?'}</code> · layer ${o.layer} (${o.source}) · ${o.dialect} · <code>${o.pointer}</code>${i > 0 ? ' · overrides the one above' : ''}</li>`)}</ol>
${schemaTable('Input', 'input', tool.inputSchema)}${schemaTable('Output', 'output', tool.outputSchema)}
${providersSection(env, tool, found.health)}
<h2 id="honesty">Honesty findings</h2>
${honesty.length ? h`${honesty.map((d) => h`<div class="diag"><strong>${d.code}</strong> <code>${d.file}:${d.line ?? '?'}:${d.column ?? '?'}</code><br>${d.message}${d.hint ? h`<br><span class="muted">${d.hint}</span>` : ''}</div>`)}` : h`<p>No evidence contradicts what the manifest claims.</p>`}
${other.length ? h`<h3>Other diagnostics</h3>${other.map((d) => h`<div class="notice">${d.severity} <strong>${d.code}</strong> <code>${d.file}:${d.line ?? '?'}</code>: ${d.message}</div>`)}` : ''}
<h2 id="history">Changes in the last reloads</h2>
${history.length ? h`<ul>${history.map((x) => h`<li>version ${x.fromVersion} → ${x.record.version} at ${x.record.at}: <strong>${x.diff.status}</strong>${x.diff.class ? h`, <span class="${x.diff.class === 'escalation' ? 'bad' : ''}">${x.diff.class}</span>` : ''}${x.diff.fails ? ' (fails the diff: escalation without a version bump)' : ''}
${x.diff.changes.length ? h`<ul>${x.diff.changes.map((ch) => h`<li><code>${ch.field}</code> ${ch.class}: ${show(ch.old)} → ${show(ch.new)}${ch.notes?.length ? h` (${ch.notes.join('; ')})` : ''}</li>`)}</ul>` : ''}</li>`)}</ul>` : h`<p>No change to this tool in the reloads since the server started.</p>`}
<details><summary>The merged manifest as JSON</summary><pre>${pretty(tool)}</pre></details>`;
  return { title: tool.name, body };
}
