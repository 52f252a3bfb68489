import { describe, expect, it } from 'vitest';
import { buildCatalog, catalogDocument, personaTools, provenance } from '../../src/registry/catalog.js';
import { toolKey } from '../../src/registry/merge.js';

const BASE = 'test/fixtures/core/base';
const OVERLAY = 'test/fixtures/core/overlay';
const tool = (name: string, paths = [BASE, OVERLAY], persona?: string) =>
  (persona === undefined ? buildCatalog(paths).catalog.tools.map((e) => e.value) : personaTools(buildCatalog(paths).catalog, persona)).find(
    (t) => t.name === name && (persona !== undefined || !t.scope),
  );

describe('merge: later layers override field by field', () => {
  it('replaces top-level fields and keeps the rest', () => {
    const read = tool('files.read');
    expect(read).toMatchObject({ description: 'Read a file (local override)', version: '1.2.0', effects: { mode: 'read', sideEffects: 'filesystem' } });
  });

  it('merges grouping objects one level deep', () => {
    const del = tool('files.delete');
    expect(del?.approval).toEqual({ required: true, consent: true });
    expect(del?.execution?.timeoutSec).toBe(10);
    expect(del?.effects).toMatchObject({ mode: 'write', reversible: 'none', risk: 'high' });
  });

  it('disables a tool with enabled: false, leaving it in the catalog but out of every view', () => {
    const { catalog } = buildCatalog([BASE, OVERLAY]);
    expect(catalog.tools.find((e) => e.value.name === 'shell.run')?.value.enabled).toBe(false);
    expect(personaTools(catalog).map((t) => t.name)).not.toContain('shell.run');
  });

  it('keeps the override chain with file, layer and dialect', () => {
    const { catalog } = buildCatalog([BASE, OVERLAY]);
    expect(provenance(catalog)['files.delete']).toMatchObject([
      { file: `${BASE}/tools.yaml`, layer: 0, dialect: 'toolcap', line: 11 },
      { file: `${OVERLAY}/local.yaml`, layer: 1, dialect: 'toolcap', line: 5 },
    ]);
  });

  it('records which layer set each field, so findings land on the right file', () => {
    const { diagnostics } = buildCatalog([BASE, OVERLAY]);
    // shell.run's system side effect without approval is declared in the base layer
    expect(diagnostics.find((d) => d.code === 'SYSTEM_WITHOUT_APPROVAL')).toMatchObject({ file: `${BASE}/tools.yaml`, line: 27, column: 29 });
  });

  it('a derived value never overrides a declared one', () => {
    // the overlay says nothing about effects; the base declared them
    expect(tool('files.read')?.derived ?? []).not.toContain('effects.mode');
  });
});

describe('persona views', () => {
  it('a persona sees shared tools plus its own, its own version shadowing the shared one', () => {
    const { catalog } = buildCatalog([BASE]);
    const researcher = personaTools(catalog, 'Researcher');
    expect(researcher.filter((t) => t.name === 'web.search')).toMatchObject([{ cost: { lane: 'medium' }, scope: { personas: ['Researcher'] } }]);
    const other = personaTools(catalog, 'Chef');
    expect(other.filter((t) => t.name === 'web.search')).toMatchObject([{ cost: { lane: 'low' } }]);
  });

  it('persona-scoped and shared tools with the same name are distinct entries, not duplicates', () => {
    const { catalog, diagnostics } = buildCatalog([BASE]);
    expect(catalog.tools.map((e) => e.key)).toEqual(expect.arrayContaining(['web.search', 'web.search@Researcher']));
    expect(diagnostics.filter((d) => d.code === 'DUPLICATE_TOOL')).toEqual([]);
  });

  it('filters agents and jobs by persona in the document view', () => {
    const { catalog } = buildCatalog([BASE]);
    expect(catalogDocument(catalog, 'Researcher').agents).toHaveLength(1);
    expect(catalogDocument(catalog, 'Chef').agents).toHaveLength(0);
  });
});

describe('completion and references', () => {
  it('derives the most restrictive reading where nothing was declared, and marks it', () => {
    const search = tool('web.search');
    expect(search?.effects).toMatchObject({ mode: 'read', sideEffects: 'read_external_service', risk: 'low' });
    expect(search?.approval?.required).toBe(false);
    expect(search?.derived).toEqual(expect.arrayContaining(['effects.mode', 'effects.risk', 'approval.required', 'execution.retryClass']));
    const shell = tool('shell.run', [BASE]);
    expect(shell?.approval?.required).toBe(true);
    expect(shell?.effects?.risk).toBe('critical');
  });

  it('reports references to skills and tools nobody defines', () => {
    const { diagnostics } = buildCatalog([BASE]);
    expect(diagnostics.filter((d) => d.code === 'UNKNOWN_REFERENCE')).toMatchObject([{ severity: 'warning', file: `${BASE}/tools.yaml` }]);
  });

  it.each([
    [{ name: 'a' }, 'a'],
    [{ name: 'a', scope: { personas: ['Y', 'X'] } }, 'a@X,Y'],
    [{ name: 'a', scope: { personas: [] } }, 'a'],
  ])('toolKey(%j) = %s', (t, key) => {
    expect(toolKey(t)).toBe(key);
  });
});
