/**
 * The `/tools` filter indexes against the straightforward scan: for every
 * filter alone (each value of its domain) and for combinations, the indexed
 * answer (`listTools`, `FilterIndex.match`) holds exactly the tools, in
 * exactly the order, that `filterTools` finds by scanning the snapshot.
 *
 * The catalog is real records (the GitHub MCP server's 114 tools and the
 * LiveMCPBench servers' tools, from ../shared/corpus) with the fields the
 * filters read varied deterministically by position: tags, providers,
 * capabilities, versions (some not semver), effects, approval, enabled,
 * surface, persona scopes, and persona copies of shared tools (shadowing).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HealthSource } from '../../src/model/health.js';
import { MODES, RISK_LEVELS, SIDE_EFFECTS, SURFACE_DOMAINS, SURFACE_OPERATIONS } from '../../src/model/vocabulary.js';
import { FilterIndex } from '../../src/query/filter-index.js';
import { filterTools, type ToolFilter } from '../../src/query/filters.js';
import { listTools } from '../../src/query/views.js';
import { buildCatalog } from '../../src/registry/catalog.js';
import { createSnapshot } from '../../src/registry/snapshot.js';

const CORPUS = '../shared/corpus';
type Raw = { name: string; description?: string; inputSchema?: unknown };

function records(): Raw[] {
  const github = (JSON.parse(readFileSync(join(CORPUS, 'mcp-github-server/tools.json'), 'utf8')) as { tools: Raw[] }).tools;
  const out: Raw[] = github.map((t) => ({ name: `github.${t.name}`, description: t.description ?? '', inputSchema: t.inputSchema }));
  const servers = JSON.parse(readFileSync(join(CORPUS, 'livemcpbench/tools.json'), 'utf8')) as Array<{ tools?: Record<string, { tools?: Raw[] }> }>;
  const seen = new Set(out.map((t) => t.name));
  for (const server of servers) {
    for (const [serverName, entry] of Object.entries(server.tools ?? {})) {
      for (const t of entry.tools ?? []) {
        const name = `${serverName}.${t.name}`.toLowerCase().replace(/[^a-z0-9_.-]+/g, '_').replace(/^[^a-z0-9_]+/, '');
        if (seen.has(name)) continue;
        seen.add(name);
        out.push({ name, description: t.description ?? '', inputSchema: { type: 'object' } });
      }
    }
  }
  return out;
}

const TAGS = ['github', 'files', 'search', 'admin', 'web'];
const PROVIDERS = ['mcp', 'http', 'cli'];
const CAPABILITIES = ['code.pull_request.create', 'code.branch.diff', 'files.read', 'files', 'files.write.append', 'search.web', 'admin.users.delete'];
const VERSIONS = ['1.0.0', '1.4.2', '2.0.0', '0.9.1', 'nightly', undefined];
const PERSONAS = [['Atlas'], ['Medic'], ['Atlas', 'Medic']];

/** Deterministic variation of the fields the filters read, by position. */
function varied(raw: Raw, i: number): Record<string, unknown> {
  const pick = <T>(list: readonly T[], k: number) => list[k % list.length] as T;
  const tool: Record<string, unknown> = { name: raw.name, description: raw.description || raw.name, inputSchema: raw.inputSchema ?? { type: 'object' } };
  if (i % 4 !== 0) tool.tags = [pick(TAGS, i), ...(i % 3 === 0 ? [pick(TAGS, i + 2)] : [])];
  if (i % 5 !== 0) tool.providers = [{ name: pick(PROVIDERS, i) }, ...(i % 7 === 0 ? [{ name: pick(PROVIDERS, i + 1) }] : [])];
  if (i % 3 !== 1) tool.capabilities = [pick(CAPABILITIES, i), ...(i % 4 === 1 ? [pick(CAPABILITIES, i + 3)] : [])];
  const version = pick(VERSIONS, i);
  if (version !== undefined) tool.version = version;
  // some tools silent on effects (completion derives them), the rest spread over every value
  if (i % 6 !== 0) {
    // a read tool changes nothing: read for the first three side effects, mixed or write for the rest
    const effect = i % SIDE_EFFECTS.length;
    tool.effects = { sideEffects: SIDE_EFFECTS[effect], risk: pick(RISK_LEVELS, i >> 1), mode: effect < 3 ? 'read' : pick(['mixed', 'write'], i >> 2) };
  }
  if (i % 3 === 0) tool.approval = { required: i % 2 === 0 };
  if (i % 9 === 0) tool.enabled = false;
  if (i % 2 === 0) tool.surface = { domains: [pick(SURFACE_DOMAINS, i)], operations: [pick(SURFACE_OPERATIONS, i), pick(SURFACE_OPERATIONS, i + 5)] };
  if (i % 17 === 0) tool.scope = { personas: pick(PERSONAS, i) };
  return tool;
}

/** Persona copies of every 10th shared tool, with other effects: they shadow the shared tool for their personas. */
function copies(tools: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return tools
    .filter((t, i) => i % 10 === 3 && t.scope === undefined)
    .map((t, k) => ({ ...t, scope: { personas: PERSONAS[k % PERSONAS.length] }, effects: { sideEffects: 'none', risk: 'low', mode: 'read' }, tags: ['persona-copy'] }));
}

const dir = mkdtempSync(join(tmpdir(), 'toolcap-filter-index-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const base = records().map(varied);
const file = join(dir, 'catalog.json');
writeFileSync(file, JSON.stringify({ toolcap: 1, tools: [...base, ...copies(base)] }));
const built = buildCatalog([file]);
const snap = createSnapshot(built, { version: 1, builtAt: '2026-01-01T00:00:00.000Z' });
// observed health for every other tool, spread over 0..1
const health: HealthSource = {
  lookup: (name) => {
    const h = [...name].reduce((a, c) => (a * 31 + c.charCodeAt(0)) >>> 0, 7);
    return h % 2 === 0 ? { status: 'ok', successRate: (h % 101) / 100 } as ReturnType<HealthSource['lookup']> : undefined;
  },
  version: () => 1,
};

const scan = (filter: ToolFilter) => filterTools(snap.ordered, filter, { health: (n) => health.lookup(n), presorted: true });
const keysOf = (filter: ToolFilter) => scan(filter).tools.map((t) => t.key);

const singles: Array<[string, ToolFilter]> = [
  ['nothing', {}],
  ...TAGS.concat('persona-copy', 'absent').map((tag): [string, ToolFilter] => [`tag ${tag}`, { tag }]),
  ...PROVIDERS.concat('absent').map((provider): [string, ToolFilter] => [`provider ${provider}`, { provider }]),
  ...CAPABILITIES.concat('files.*', 'code.*', 'code.pull_request.*', 'files.write.*', 'absent.*', 'fil.*').map((capability): [string, ToolFilter] => [`capability ${capability}`, { capability }]),
  ...['>=1.0.0', '^1', '<1', '2.x', '*', '>=3'].map((version): [string, ToolFilter] => [`version ${version}`, { version }]),
  ...SIDE_EFFECTS.map((sideEffects): [string, ToolFilter] => [`side effects ${sideEffects}`, { sideEffects }]),
  ...RISK_LEVELS.map((maxRisk): [string, ToolFilter] => [`max risk ${maxRisk}`, { maxRisk }]),
  ...MODES.map((mode): [string, ToolFilter] => [`mode ${mode}`, { mode }]),
  ...SURFACE_DOMAINS.map((domain): [string, ToolFilter] => [`domain ${domain}`, { domain }]),
  ...SURFACE_OPERATIONS.map((operation): [string, ToolFilter] => [`operation ${operation}`, { operation }]),
  ['approval true', { approval: true }],
  ['approval false', { approval: false }],
  ['enabled true', { enabled: true }],
  ['enabled false', { enabled: false }],
  ...[0, 0.3, 0.75, 1].map((minSuccessRate): [string, ToolFilter] => [`min success rate ${minSuccessRate}`, { minSuccessRate }]),
  ...[['Atlas'], ['Medic'], ['Atlas', 'Medic'], ['Atlas', '-shared'], ['Medic', '-shared'], ['Nobody'], ['Nobody', '-shared']].map((personas): [string, ToolFilter] => [`personas ${personas.join(',')}`, { personas }]),
];

const combos: Array<[string, ToolFilter]> = [
  ['Atlas, max risk medium', { personas: ['Atlas'], maxRisk: 'medium' }],
  ['Atlas, max risk medium, tag github', { personas: ['Atlas'], maxRisk: 'medium', tag: 'github' }],
  ['Medic, -shared, mode read', { personas: ['Medic', '-shared'], mode: 'read' }],
  ['tag and provider', { tag: 'files', provider: 'http' }],
  ['two postings and a bitmap', { tag: 'search', capability: 'files.*', enabled: true }],
  ['provider, version, approval', { provider: 'mcp', version: '^1', approval: false }],
  ['side effects, risk, mode, domain, operation', { sideEffects: 'write', maxRisk: 'high', mode: 'write', domain: SURFACE_DOMAINS[0], operation: SURFACE_OPERATIONS[0] }],
  ['Atlas, health 0.5, enabled', { personas: ['Atlas'], minSuccessRate: 0.5, enabled: true }],
  ['Atlas+Medic, persona-copy tag', { personas: ['Atlas', 'Medic'], tag: 'persona-copy' }],
  ['Atlas, mode write (copies are read: the shared tools stay)', { personas: ['Atlas'], mode: 'write' }],
  ['everything at once', { personas: ['Atlas'], provider: 'cli', tag: 'web', capability: 'code.*', version: '*', sideEffects: 'system', maxRisk: 'critical', approval: true, enabled: true, minSuccessRate: 0.2 }],
  ['nothing matches', { tag: 'github', provider: 'absent' }],
];

describe('the filter index answers as the scan', () => {
  it('has a catalog that exercises every filter', () => {
    expect(built.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(snap.ordered.length).toBeGreaterThan(500);
    for (const [name, filter] of singles.filter(([n]) => !/absent|nothing|Nobody|>=3|fil\.\*/.test(n))) {
      const total = scan(filter).total;
      expect(total, name).toBeGreaterThan(0);
    }
    // most filters narrow: the catalog is not all one value
    const narrowing = singles.filter(([n]) => /^(tag|provider|capability|mode|domain|operation|approval|enabled false|max risk (low|medium)|side effects (none|compute))/.test(n));
    for (const [name, filter] of narrowing) expect(scan(filter).total, name).toBeLessThan(snap.ordered.length);
    // shadowing happens: Atlas sees fewer shared tools than the unscoped list holds
    const atlas = keysOf({ personas: ['Atlas'] });
    expect(atlas.some((k) => k.includes('@'))).toBe(true);
  });

  it.each([...singles, ...combos])('%s', (_name, filter) => {
    const expected = scan(filter);
    const index = new FilterIndex(snap.ordered);
    const rates = Float64Array.from(snap.ordered, (e) => health.lookup(e.value.name)?.successRate ?? Number.NaN);
    const positions = [...index.match(filter, rates)];
    expect(positions.map((i) => snap.ordered[i]?.key)).toEqual(expected.tools.map((t) => t.key));
    const page = listTools(snap, filter, health);
    expect(page.total).toBe(expected.total);
    expect(page.tools.map((t) => t.key)).toEqual(expected.tools.map((t) => t.key));
  });

  it.each([...singles.slice(0, 12), ...combos])('pages of %s: offset and cursor as the scan', (_name, filter) => {
    for (const paging of [{ limit: 7 }, { limit: 7, offset: 20 }, { limit: 1000, offset: 3 }, { offset: 100_000 }]) {
      const expected = scan({ ...filter, ...paging });
      const page = listTools(snap, { ...filter, ...paging }, health);
      expect({ total: page.total, keys: page.tools.map((t) => t.key), next: page.nextCursor }).toEqual({
        total: expected.total,
        keys: expected.tools.map((t) => t.key),
        next: expected.nextCursor,
      });
    }
    // walk every page by cursor: the same tools, each once, in order
    const walked: string[] = [];
    let cursor: string | undefined;
    do {
      const page = listTools(snap, { ...filter, limit: 50, ...(cursor !== undefined ? { cursor } : {}) }, health);
      walked.push(...page.tools.map((t) => t.key));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(walked).toEqual(keysOf(filter));
  });
});
