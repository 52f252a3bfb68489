import { describe, expect, it } from 'vitest';
import { filterTools } from '../../src/query/filters.js';
import { listingFilter, parseFilter } from '../../src/query/params.js';
import { explainRanking } from '../../src/query/explain.js';
import { buildCatalog } from '../../src/registry/catalog.js';
import { createSnapshot } from '../../src/registry/snapshot.js';
import { cli } from './helpers.js';

const PATHS = ['examples/manifests', 'examples/overrides'];
const snap = createSnapshot(buildCatalog(PATHS), { version: 1, builtAt: '2026-01-01T00:00:00.000Z' });

/** The keys the library answers for these query parameters: what `list` must print. */
function expectedKeys(query: string): string[] {
  const params = new URLSearchParams(query);
  const parsed = parseFilter(params);
  if (!('filter' in parsed)) throw new Error(`bad test query ${query}`);
  return filterTools(snap.tools, listingFilter(parsed.filter, params)).tools.map((t) => t.key);
}

describe('toolcap list', () => {
  it.each([
    ['no filter', [], ''],
    ['--max-risk', ['--max-risk', 'medium'], 'max_risk=medium'],
    ['--mode', ['--mode', 'read'], 'mode=read'],
    ['--side-effects', ['--side-effects', 'read_external_service'], 'side_effects=read_external_service'],
    ['--persona twice', ['--persona', 'Atlas', '--persona', 'MedicalAssistant'], 'persona=Atlas&persona=MedicalAssistant'],
    ['--persona with -shared', ['--persona', 'Atlas', '--persona', '-shared'], 'persona=Atlas&persona=-shared'],
    ['--approval', ['--approval', 'false'], 'approval=false'],
    ['--enabled', ['--enabled', 'false'], 'enabled=false'],
    ['--enabled any (disabled ones too)', ['--enabled', 'any'], 'enabled=any'],
    ['--version (not the program version)', ['--version', '>=1.0.0'], 'version=%3E%3D1.0.0'],
    ['--capability prefix', ['--capability', 'tasks.*'], 'capability=tasks.*'],
    ['--limit', ['--limit', '3'], 'limit=3'],
  ])('%s prints what the /tools filter selects', async (_name, flags, query) => {
    const { code, stdout } = await cli('list', ...PATHS, ...flags, '--json');
    expect(code).toBe(0);
    const page = JSON.parse(stdout) as { tools: Array<{ key: string; capabilities: string[]; authScopes: string[]; health: unknown }>; total: number };
    expect(page.tools.map((t) => t.key)).toEqual(expectedKeys(query));
    for (const t of page.tools) expect(t).toMatchObject({ capabilities: expect.any(Array), authScopes: expect.any(Array), health: { status: 'unknown' } });
  });

  it('prints one line per tool for people', async () => {
    const { code, stdout, stderr } = await cli('list', ...PATHS, '--mode', 'read');
    expect(code).toBe(0);
    const keys = expectedKeys('mode=read');
    expect(stdout.trim().split('\n').map((l) => l.split(/\s+/)[0])).toEqual(keys);
    expect(stderr).toContain(`${keys.length} of ${keys.length} tools`);
  });

  it.each([
    [['--max-risk', 'extreme'], '--max-risk'],
    [['--side-effects', 'lots'], '--side-effects'],
    [['--version', 'not a range'], '--version'],
    [['--approval', 'maybe'], '--approval'],
    [['--limit', '0'], '--limit'],
    [['--min-success-rate', '2'], '--min-success-rate'],
    [['--capability', 'Bad Cap'], '--capability'],
  ])('%j is a usage error naming the flag', async (flags, flag) => {
    const { code, stdout, stderr } = await cli('list', ...PATHS, ...flags);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`toolcap: ${flag}:`);
  });

  it('exits 1 with the diagnostics when the catalog has errors', async () => {
    const { code, stdout, stderr } = await cli('list', 'test/fixtures/capability/broken');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/error [A-Z_]+/);
  });

  it('exits 2 for a missing path', async () => {
    expect((await cli('list', 'no/such/folder')).code).toBe(2);
  });
});

describe('toolcap search', () => {
  it.each([['list the open incidents'], ['create a pull request for my branch'], ['search the web']])('ranks "%s" as the library does', async (query) => {
    const { code, stdout } = await cli('search', ...PATHS, '--query', query, '--json', '--explain', '--limit', '5');
    expect(code).toBe(0);
    const answer = JSON.parse(stdout) as { intent: string; candidates: Array<{ name: string; penalties: unknown[]; alternatives: string[] }> };
    const expected = explainRanking(query, snap.toolsFor(), { limit: 5 });
    expect(answer.intent).toBe(expected.intent);
    expect(answer.candidates.map((c) => c.name)).toEqual(expected.candidates.map((c) => c.name));
    expect(answer.candidates.map((c) => c.penalties)).toEqual(expected.candidates.map((c) => c.penalties));
  });

  it('puts the read tool first for a read task and still finds the write tool for a write task', async () => {
    const read = JSON.parse((await cli('search', ...PATHS, '--query', 'list incidents', '--json')).stdout) as { candidates: Array<{ tool: { tool: { effects: { mode: string } } } }> };
    expect(read.candidates[0]?.tool.tool.effects.mode).toBe('read');
    const write = JSON.parse((await cli('search', ...PATHS, '--query', 'trigger a new incident', '--json')).stdout) as { candidates: Array<{ name: string }> };
    expect(write.candidates[0]?.name).toBe('pagerduty.trigger_incident');
  });

  it('--explain shows every penalty with its reason, for people', async () => {
    const { code, stdout } = await cli('search', ...PATHS, '--query', 'trigger a new incident', '--explain', '--limit', '1');
    expect(code).toBe(0);
    const [candidate] = explainRanking('trigger a new incident', snap.toolsFor(), { limit: 1 }).candidates;
    expect(candidate).toBeDefined();
    for (const p of candidate?.penalties ?? []) expect(stdout).toContain(`-${p.points} ${p.code}: ${p.reason}`);
    expect(stdout).toMatch(/^intent: write/);
  });

  it('--intent overrides the intent read from the words; --explain prints the reading', async () => {
    const read = await cli('search', ...PATHS, '--query', "don't trigger anything, which incidents are open?", '--explain', '--limit', '3');
    expect(read.code).toBe(0);
    expect(read.stdout).toMatch(/^intent: read \(confidence 0\.8\): question: "which"/);
    expect(read.stdout).toContain('task: wants a list; rules out: trigger');
    const given = await cli('search', ...PATHS, '--query', 'incidents', '--intent', 'write', '--json');
    expect(JSON.parse(given.stdout)).toMatchObject({ intent: 'write', confidence: 1 });
    const bad = await cli('search', ...PATHS, '--query', 'incidents', '--intent', 'maybe');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('maybe');
  });

  it('narrows by persona and filters', async () => {
    const { stdout } = await cli('search', ...PATHS, '--query', 'run a command', '--persona', 'Atlas', '--mode', 'read', '--json');
    const answer = JSON.parse(stdout) as { candidates: Array<{ tool: { tool: { effects: { mode: string }; scope?: { personas?: string[] } } } }> };
    for (const c of answer.candidates) {
      expect(c.tool.tool.effects.mode).toBe('read');
      expect(c.tool.tool.scope?.personas ?? ['Atlas']).toContain('Atlas');
    }
  });

  it.each([
    [['--query', ' '], '--query'],
    [['--query', 'x', '--limit', '101'], '--limit'],
    [['--query', 'x', '--mode', 'sideways'], '--mode'],
    // the bound /search has: understanding is not linear in the length for every shape of text
    [['--query', `open ${'file.x'.repeat(300)}`], '--query'],
  ])('%j is a usage error naming the flag', async (flags, flag) => {
    const { code, stderr } = await cli('search', ...PATHS, ...flags);
    expect(code).toBe(2);
    expect(stderr).toContain(`toolcap: ${flag}:`);
  });

  it('needs --query', async () => {
    const { code, stderr } = await cli('search', ...PATHS);
    expect(code).toBe(2);
    expect(stderr).toContain('--query');
  });
});
