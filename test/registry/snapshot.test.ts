import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { complete } from '../../src/model/derive.js';
import type { Tool } from '../../src/model/schema.js';
import { buildCatalog, personaTools, type Catalog } from '../../src/registry/catalog.js';
import { toolKey } from '../../src/registry/merge.js';
import { createSnapshot, deepFreeze, documentHash, type Snapshot } from '../../src/registry/snapshot.js';

const BASE = 'test/fixtures/core/base';
const OVERLAY = 'test/fixtures/core/overlay';
const snap = (paths: string[], version = 1) => createSnapshot(buildCatalog(paths), { version, builtAt: '2026-01-01T00:00:00.000Z' });

const tmp = mkdtempSync(join(tmpdir(), 'toolcap-snapshot-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('snapshot indexes', () => {
  const s = snap([BASE, OVERLAY]);

  it('indexes every tool by merge key and by name, pointing at the same objects', () => {
    expect(s.byKey.size).toBe(s.tools.length);
    for (const tool of s.tools) {
      expect(s.byKey.get(toolKey(tool))).toBe(tool);
      expect(s.byName.get(tool.name)).toContain(tool);
    }
    expect([...s.byName.values()].flat()).toHaveLength(s.tools.length);
  });

  it('lists the shared version of a name first', () => {
    expect(s.byName.get('web.search')?.map((t) => t.scope?.personas ?? [])).toEqual([[], ['Researcher']]);
  });

  it.each([
    { persona: 'Researcher', lane: 'medium' },
    { persona: 'Chef', lane: 'low' },
    { persona: undefined, lane: 'low' },
  ])('tool("web.search", $persona) is the version that persona sees (cost lane $lane)', ({ persona, lane }) => {
    expect(s.tool('web.search', persona)?.cost?.lane).toBe(lane);
  });

  it.each([['Researcher'], ['Chef'], [undefined]])('toolsFor(%s) agrees with personaTools', (persona) => {
    const { catalog } = buildCatalog([BASE, OVERLAY]);
    expect(s.toolsFor(persona).map(toolKey)).toEqual(personaTools(catalog, persona).map(toolKey));
  });

  it('knows the personas tools are scoped to, and gives provenance with positions', () => {
    expect(s.personas).toEqual(['Researcher']);
    expect(s.provenance('files.delete')).toMatchObject([
      { file: `${BASE}/tools.yaml`, layer: 0, line: 11 },
      { file: `${OVERLAY}/local.yaml`, layer: 1 },
    ]);
    expect(s.provenance('no.such')).toBeUndefined();
  });

  it('documentFor(persona) filters agents and tools', () => {
    const chef = s.documentFor('Chef');
    expect(chef.agents.map((a) => a.name)).not.toContain('researcher');
    expect(chef.tools).toBe(s.toolsFor('Chef'));
    expect(s.documentFor()).toBe(s.document);
  });
});

describe('snapshot immutability', () => {
  const s = snap([BASE, OVERLAY]);
  const mutations: Array<[string, (s: Snapshot) => void]> = [
    ['a tool field', (x) => ((x.tools[0] as { name: string }).name = 'x')],
    ['a nested group', (x) => ((x.tools.find((t) => t.effects)!.effects as { mode: string }).mode = 'x')],
    ['a nested schema', (x) => ((x.tools.find((t) => t.inputSchema)!.inputSchema as Record<string, unknown>)['type'] = 'x')],
    ['the tool list', (x) => (x.tools as Tool[]).push(x.tools[0]!)],
    ['a name index list', (x) => (x.byName.get('web.search') as Tool[]).pop()],
    ['a persona view', (x) => (x.toolsFor('Researcher') as Tool[]).length = 0],
    ['the diagnostics', (x) => (x.diagnostics as unknown[]).push({})],
    ['the version', (x) => ((x as { version: number }).version = 9)],
    ['the etag', (x) => ((x as { etag: string }).etag = 'x')],
    ['an index (no set)', (x) => (x.byKey as unknown as Map<string, Tool>).set('x', x.tools[0]!)],
    ['a skill', (x) => ((x.skills[0] as { name: string }).name = 'x')],
    ['provenance copies', (x) => ((x.provenance('files.read')![0] as { file: string }).file = 'x')],
  ];

  it.each(mutations)('refuses a change to %s', (_what, mutate) => {
    const before = documentHash(s.document);
    expect(() => mutate(s)).toThrow(TypeError);
    expect(documentHash(s.document)).toBe(before);
    expect(s.etag).toBe(before);
  });
});

describe('etag', () => {
  const write = (name: string, text: string) => {
    const path = join(tmp, name);
    writeFileSync(path, text);
    return path;
  };
  const base = `toolcap: 1
tools:
  - name: a.read
    description: Read a
    effects: { mode: read }
  - name: b.write
    description: Write b
    effects: { mode: write, sideEffects: filesystem, reversible: full }
`;

  it('is the etag of the document (registry/etag.ts), and the same for two builds of the same files', () => {
    const path = write('same.yaml', base);
    const [one, two] = [snap([path], 1), snap([path], 2)];
    expect(one.etag).toBe(two.etag);
    expect(one.etag).toBe(documentHash(one.document));
    expect(one.etag).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it.each([
    { edit: 'keys reordered, comments and spacing changed', text: base.replace('description: Read a\n    effects: { mode: read }', 'effects: {  mode: read } # hi\n    description: Read a'), same: true },
    { edit: 'a description changed', text: base.replace('Read a', 'Read A'), same: false },
    { edit: 'a nested field changed', text: base.replace('reversible: full', 'reversible: none'), same: false },
    { edit: 'a tool added', text: `${base}  - name: c.read\n    effects: { mode: read }\n`, same: false },
    { edit: 'tools reordered', text: base.replace(/( {2}- name: a\.read\n.*\n.*\n)( {2}- name: b\.write\n.*\n.*\n)/, '$2$1'), same: false },
  ])('$edit: same etag is $same', ({ text, same }) => {
    expect(text).not.toBe('');
    const before = snap([write('edit.yaml', base)]).etag;
    const after = snap([write('edit.yaml', text)]).etag;
    if (same) expect(after).toBe(before);
    else expect(after).not.toBe(before);
  });
});

describe('freezing a large catalog', () => {
  it('deep-freezes every tool of a 10,000-tool catalog and indexes them all', () => {
    const rich: Tool = {
      name: 'x',
      description: 'A tool with most groups filled in',
      effects: { mode: 'write', sideEffects: 'filesystem', reversible: 'partial', risk: 'medium' },
      approval: { required: true, consent: true },
      auth: { required: true, type: 'oauth2', scopes: ['repo', 'read:org'] },
      cost: { lane: 'low', estimatedDollars: 0.01 },
      latency: { p50Ms: 100, p95Ms: 900 },
      execution: { timeoutSec: 30, allowParallel: false, idempotent: false, retryClass: 'guarded' },
      tags: ['a', 'b', 'c'],
      inputSchema: { type: 'object', properties: { path: { type: 'string' }, depth: { type: 'integer', minimum: 0 } }, required: ['path'] },
    } as Tool;
    const tools = Array.from({ length: 10_000 }, (_, i) => {
      const value = complete(structuredClone({ ...rich, name: `t.tool${i}` }));
      return { key: value.name, value, origins: [] };
    });
    const catalog: Catalog = { bundles: [], tools, skills: [], agents: [], jobs: [], documents: new Map() };
    // Speed is measured, not asserted (40-130 ms here, docs/registry.md): tests check behaviour.
    deepFreeze(catalog.tools.map((e) => e.value));
    expect(Object.isFrozen(tools[9_999]!.value.inputSchema)).toBe(true);
    const s = createSnapshot({ catalog, diagnostics: [] }, { version: 1, builtAt: '2026-01-01T00:00:00.000Z' });
    expect(s.byKey.size).toBe(10_000);
  });
});

describe('freezing leaves no shared state behind', () => {
  // Every fixture and example, snapshotted (frozen) and then built again in the same process:
  // a later build must never try to change an object an earlier snapshot froze.
  const sources = [['examples/manifests', 'examples/overrides'], ...['atlas', 'capability', 'core', 'mcp', 'openai', 'openapi', 'pylot', 'shinkai', 'xena'].map((d) => [`test/fixtures/${d}`])];
  it.each(sources)('%s', (...paths) => {
    const first = createSnapshot(buildCatalog(paths), { version: 1, builtAt: '2026-01-01T00:00:00.000Z' });
    const again = buildCatalog(paths);
    const second = createSnapshot(again, { version: 2, builtAt: '2026-01-01T00:00:00.000Z' });
    expect(second.etag).toBe(first.etag);
    expect(second.tools.length).toBeGreaterThan(0);
  });
});
