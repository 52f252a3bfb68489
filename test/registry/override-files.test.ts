import { describe, expect, it } from 'vitest';
import { loadLayers } from '../../src/load/loader.js';
import { isOverrideFile, tieredFiles } from '../../src/load/override-order.js';
import { buildCatalog, provenance } from '../../src/registry/catalog.js';

const PROJECT = 'test/fixtures/pylot/project/config';
const BASE = `${PROJECT}/tool_manifest.json`;
const LOCAL = `${PROJECT}/local_overrides.yaml`;
const TEAM = `${PROJECT}/zz_team_override.yaml`;

describe('override files are tiers of their layer', () => {
  it.each([
    ['config/local_overrides.yaml', true],
    ['config/Site.OVERRIDE.json', true],
    ['config/tool_manifest.json', false],
    ['overrides/tool_manifest.json', false], // the folder name does not count
  ])('isOverrideFile(%s) is %s', (path, expected) => {
    expect(isOverrideFile(path)).toBe(expected);
  });

  it('orders base files first (as walked), then override files by name, one tier each', () => {
    expect(tieredFiles(['c/a_override.yaml', 'c/b.json', 'c/Z_overrides.yaml', 'c/a.json'])).toEqual([
      { path: 'c/b.json', tier: 0 },
      { path: 'c/a.json', tier: 0 },
      { path: 'c/a_override.yaml', tier: 1 },
      { path: 'c/Z_overrides.yaml', tier: 2 },
    ]);
  });

  it('the loader reads the Pylot config folder base first, whatever the names sort to', () => {
    const { layers } = loadLayers([PROJECT]);
    expect(layers[0]?.documents.map((d) => [d.file.path, d.tier ?? 0])).toEqual([
      [BASE, 0],
      [LOCAL, 1],
      [TEAM, 2],
    ]);
  });
});

describe('a Pylot project folder with local overrides', () => {
  const { catalog, diagnostics } = buildCatalog([PROJECT]);
  const tool = (name: string) => catalog.tools.find((e) => e.value.name === name)?.value;

  it('loads without DUPLICATE_TOOL: later files override earlier ones by name', () => {
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(tool('shell_run')?.enabled).toBe(false);
    // base timeout 10 -> local 5; the team file (last) sets the description and keeps the timeout
    expect(tool('git_status')).toMatchObject({ description: 'Inspect repository status (team copy)', execution: { timeoutSec: 5 }, permissions: ['read_repo'] });
  });

  it('keeps the override chain in order', () => {
    expect(provenance(catalog)['git_status']?.map((o) => o.file)).toEqual([BASE, LOCAL, TEAM]);
  });

  it('adds a site tool with a note, and warns at an override that disables nothing', () => {
    expect(tool('site_lint')).toBeDefined();
    const notes = diagnostics.filter((d) => d.code === 'OVERRIDE_UNMATCHED').map((d) => ({ severity: d.severity, file: d.file, line: d.line, pointer: d.pointer }));
    expect(notes).toEqual([
      { severity: 'info', file: LOCAL, line: 16, pointer: '/tools/2' },
      { severity: 'warning', file: TEAM, line: 10, pointer: '/tools/1' },
    ]);
  });

  it('gives the same result when the config lists the files as layers in that order', () => {
    const listed = buildCatalog([BASE, LOCAL, TEAM]).catalog.tools.map((e) => e.value);
    expect(listed).toEqual(catalog.tools.map((e) => e.value));
  });

  it('an override file given as its own layer is still checked for names that match nothing', () => {
    const { diagnostics: alone } = buildCatalog([TEAM]);
    expect(alone.filter((d) => d.code === 'OVERRIDE_UNMATCHED')).toHaveLength(2);
  });

  it('two base manifests defining one name stay duplicates', () => {
    const { diagnostics: two } = buildCatalog(['test/fixtures/pylot/two-bases']);
    expect(two.filter((d) => d.code === 'DUPLICATE_TOOL')).toHaveLength(1);
  });
});

describe('toolcap validate on a Pylot config folder', () => {
  it('exits 0 with the override notes, and 1 for two base manifests', async () => {
    const { cli } = await import('../cli/helpers.js');
    const ok = await cli('validate', PROJECT);
    expect(ok.code).toBe(0);
    expect(ok.stdout + ok.stderr).toMatch(/OVERRIDE_UNMATCHED/);
    expect(ok.stdout + ok.stderr).not.toMatch(/DUPLICATE_TOOL/);
    const bad = await cli('validate', 'test/fixtures/pylot/two-bases');
    expect(bad.code).toBe(1);
    expect(bad.stdout + bad.stderr).toMatch(/DUPLICATE_TOOL/);
  });
});
