/**
 * The catalog page, `/`: the `/tools` filters as a form, counts by mode and
 * risk over every match, one page of tools; with words in the search box,
 * `/search`'s ranking instead, each candidate with its fit, every penalty
 * and its reason, the terms matched and the manifest's alternatives. The
 * URL holds the whole state (the form is a GET), so a view can be shared.
 * @module
 */
import { MODES, RISK_LEVELS, SIDE_EFFECTS } from '../../model/vocabulary.js';
import type { Tool } from '../../model/schema.js';
import { parseFilter } from '../../query/params.js';
import { listTools, matchingTools, searchAnswer, searchTools, type SearchAnswer, type ToolView } from '../../query/views.js';
import type { Snapshot } from '../../registry/snapshot.js';
import { allowedPersonas } from '../../runtime/identity/principal.js';
import { parseSearch } from '../catalog-params.js';
import { NO_PERSONA, scopedQuery } from '../personas.js';
import { ApiProblem, badParameters } from '../problem.js';
import type { PageEnv, PageResult } from './page.js';
import { h, queryString, select, type Safe } from './html.js';

/** Tools on one page. */
export const PAGE_SIZE = 50;
/** Candidates a search shows. */
const SEARCH_LIMIT = 20;
/** The parameters the form writes (the `/tools` filters the console offers, the query and the page). */
/** The parameters the catalog's form and pager use (console.ts refuses those taken once when repeated). */
export const CATALOG_PARAMS = ['q', 'persona', 'mode', 'side_effects', 'max_risk', 'approval', 'provider', 'min_success_rate', 'tag', 'capability', 'offset'] as const;
const FORM_PARAMS = CATALOG_PARAMS;

/** Counts by mode and risk of one filtered list, made once per list (the list itself is cached per snapshot and filter). */
/** Tools by mode and by risk (a silent field counts as its most severe value). */
function counts(items: ReadonlyArray<{ tool: Tool }>) {
  const c = { mode: new Map<string, number>(), risk: new Map<string, number>() };
  for (const { tool } of items) {
    const m = tool.effects?.mode ?? 'write';
    const r = tool.effects?.risk ?? 'high';
    c.mode.set(m, (c.mode.get(m) ?? 0) + 1);
    c.risk.set(r, (c.risk.get(r) ?? 0) + 1);
  }
  return c;
}

/** Provider names of a snapshot, for the filter's choices. */
const providerCache = new WeakMap<Snapshot, string[]>();
function providerNames(snap: Snapshot): string[] {
  let names = providerCache.get(snap);
  if (!names) {
    const set = new Set<string>();
    for (const t of snap.tools) for (const p of t.providers ?? []) set.add(p.name);
    providerCache.set(snap, (names = [...set].sort()));
  }
  return names;
}

/** The console's tool link: the merge key's name, with the persona it was seen as. */
export function toolHref(view: Pick<ToolView, 'name' | 'personas'>, persona?: string): string {
  const p = persona !== undefined && persona !== NO_PERSONA ? persona : view.personas[0];
  return `/ui/tools/${encodeURIComponent(view.name)}${p !== undefined ? `?persona=${encodeURIComponent(p)}` : ''}`;
}

function toolRow(view: ToolView, persona: string | undefined, extra?: Safe): Safe {
  const t = view.tool;
  const e = t.effects ?? {};
  const derived = new Set(t.derived ?? []);
  const cell = (label: string, path: string, value: unknown, cls = '') =>
    h`<td data-label="${label}"><span class="${[cls, derived.has(path) ? 'derived' : ''].join(' ').trim()}">${value === undefined ? '–' : String(value)}</span></td>`;
  const health = view.health;
  const description = (t.description ?? '').length > 160 ? `${(t.description ?? '').slice(0, 157)}…` : (t.description ?? '');
  return h`<tr><td data-label="Tool"><a href="${toolHref(view, persona)}">${view.name}</a>${view.personas.length ? h` <span class="tag">${view.personas.join(', ')}</span>` : ''}${t.enabled === false ? h` <span class="tag">disabled</span>` : ''}<div class="muted">${description}</div>${extra ?? ''}</td>
${cell('Mode', 'effects.mode', e.mode)}${cell('Side effects', 'effects.sideEffects', e.sideEffects)}${cell('Risk', 'effects.risk', e.risk, `risk-${e.risk ?? ''}`)}${cell('Approval', 'approval.required', t.approval?.required ? 'required' : 'no')}
<td data-label="Health">${health.status}${health.successRate !== undefined ? h` (${Math.round(health.successRate * 100)}%)` : ''}</td>
<td data-label="Providers">${(t.providers ?? []).map((p) => h`<span class="tag">${p.name}</span>`)}</td></tr>`;
}

const TABLE_HEAD = h`<thead><tr><th scope="col">Tool</th><th scope="col">Mode</th><th scope="col">Side effects</th><th scope="col">Risk</th><th scope="col">Approval</th><th scope="col">Health</th><th scope="col">Providers</th></tr></thead>`;

function explanation(answer: SearchAnswer, persona: string | undefined): Safe {
  const rows = answer.candidates.map((c) => {
    const penalties = c.penalties ?? [];
    const why = h`<details><summary>Why ${c.score} (fit ${c.fit})</summary>
<p>Matched: ${c.matched?.length ? c.matched.join(', ') : 'no query term'}.</p>
${penalties.length ? h`<ul>${penalties.map((p) => h`<li><strong>−${p.points}</strong> ${p.code}: ${p.reason}</li>`)}</ul>` : h`<p>No penalties.</p>`}
${c.alternatives?.length ? h`<p>Alternatives the manifest names: ${c.alternatives.map((a) => h`<a href="/ui/tools/${encodeURIComponent(a)}">${a}</a> `)}</p>` : ''}</details>`;
    return toolRow(c.tool, persona, h`<div><strong>#${c.rank}</strong> score ${c.score} · fit ${c.fit} · penalties −${Math.round(penalties.reduce((n, p) => n + p.points, 0) * 100) / 100}</div>${why}`);
  });
  return h`<section aria-labelledby="ranked"><h2 id="ranked">Ranked for “${answer.query}”</h2>
<p>Intent <strong>${answer.intent}</strong> (confidence ${answer.confidence})${answer.intentEvidence?.length ? h`, read from: ${answer.intentEvidence.join('; ')}` : ''}. Score = fit × ${answer.weights?.fit ?? 100} minus the penalties below.</p>
${answer.candidates.length === 0 ? h`<p>No tool matches.</p>` : h`<div class="scroll"><table class="stack">${TABLE_HEAD}<tbody>${rows}</tbody></table></div>`}</section>`;
}

/** `GET /`. */
export function catalogPage({ ctx, user, url }: PageEnv): PageResult {
  const snap = ctx.registry.snapshot();
  const params = new URLSearchParams([...url.searchParams].filter(([k, v]) => (FORM_PARAMS as readonly string[]).includes(k) && v !== ''));
  const q = params.get('q') ?? '';
  const shown = (name: string) => params.get(name) ?? undefined;
  const personas = user.principal ? allowedPersonas(user.principal, snap.personas) : [...snap.personas];
  const form = h`<form class="filters" method="get" action="/" role="search">
<label>Search for a task<input type="search" name="q" value="${q}" placeholder="e.g. list open incidents"></label>
${select('persona', 'Persona', personas, shown('persona'))}${select('mode', 'Mode', MODES, shown('mode'))}${select('side_effects', 'Side effects', SIDE_EFFECTS, shown('side_effects'))}
${select('max_risk', 'Risk at most', RISK_LEVELS, shown('max_risk'))}${select('approval', 'Approval required', ['true', 'false'], shown('approval'))}${select('provider', 'Provider', providerNames(snap), shown('provider'))}
<label>Health: success rate at least<input name="min_success_rate" inputmode="decimal" size="5" value="${shown('min_success_rate') ?? ''}"></label>
<label>Tag<input name="tag" size="10" value="${shown('tag') ?? ''}"></label><label>Capability<input name="capability" size="14" value="${shown('capability') ?? ''}"></label>
<button type="submit">Apply</button> <a href="/">Clear</a></form>`;

  const filterParams = new URLSearchParams([...params].filter(([k]) => k !== 'q' && (q === '' || k !== 'offset')));
  let body: Safe;
  try {
    const scoped = scopedQuery(ctx.registry, ctx.runtime, user.principal, filterParams, true) ?? filterParams;
    const persona = scoped.get('persona') ?? undefined;
    if (q !== '') {
      const searchParams = new URLSearchParams([...scoped, ['q', q], ['explain', '1'], ['limit', String(SEARCH_LIMIT)]]);
      const { search, filter } = parseSearch(searchParams);
      const taskRisk = ctx.options.taskRisk;
      const result = searchTools(snap, { query: search.q, filter, limit: search.limit, ...(taskRisk !== undefined ? { taskRisk } : {}), ...(ctx.options.weights ? { weights: ctx.options.weights } : {}) }, ctx.health);
      body = explanation(searchAnswer(result, true), persona);
    } else {
      const parsed = parseFilter(new URLSearchParams([...scoped, ['limit', String(PAGE_SIZE)]]));
      if ('problems' in parsed) throw badParameters(parsed.problems);
      const page = listTools(snap, parsed.filter, ctx.health);
      const all = counts(matchingTools(snap, parsed.filter, ctx.health));
      const offset = parsed.filter.offset ?? 0;
      const link = (to: number) => queryString([...params].filter(([k]) => k !== 'offset').concat(to > 0 ? [['offset', String(to)]] : []));
      const countList = (title: string, m: Map<string, number>, order: readonly string[]) =>
        h`<span><strong>${title}:</strong> ${order.filter((k) => m.has(k)).map((k) => h`${k} ${m.get(k)} `)}</span>`;
      body = h`<p class="counts" aria-live="polite"><span><strong>${page.total}</strong> of ${snap.tools.length} tools match</span>${countList('By mode', all.mode, MODES)}${countList('By risk', all.risk, RISK_LEVELS)}</p>
<div class="scroll"><table class="stack"><caption class="muted">Tools ${page.total === 0 ? 0 : offset + 1}–${offset + page.tools.length}, by name. Italic values are derived, not declared.</caption>${TABLE_HEAD}<tbody>${page.tools.map((v) => toolRow(v, persona))}</tbody></table></div>
<nav class="pager" aria-label="Pages">${offset > 0 ? h`<a href="/${link(Math.max(0, offset - PAGE_SIZE))}" rel="prev">Previous page</a>` : ''}${page.nextCursor !== undefined ? h`<a href="/${link(offset + PAGE_SIZE)}" rel="next">Next page</a>` : ''}</nav>`;
    }
  } catch (error) {
    if (!(error instanceof ApiProblem)) throw error;
    body = h`<p class="diag" role="alert">${error.body.detail}</p>`;
  }
  return { title: q ? `Search: ${q}` : 'Catalog', body: h`<h1>Catalog</h1>${form}${body}` };
}
