import { describe, expect, it } from 'vitest';
import type { Tool } from '../../src/model/schema.js';
import type { Entry } from '../../src/registry/merge.js';
import { toolKey } from '../../src/registry/merge.js';
import { diffCatalogs, diffTool } from '../../src/drift/diff.js';
import { toolHash } from '../../src/model/hash.js';

const entries = (...tools: Tool[]): Array<Entry<Tool>> =>
  tools.map((value) => ({ key: toolKey(value), value, origins: [] }));

describe('added tools', () => {
  it.each<[string, Tool, boolean]>([
    ['an enabled writer without a version fails', { name: 'n', effects: { mode: 'write', sideEffects: 'write' } }, true],
    ['an undeclared tool is read as a writer and fails', { name: 'n' }, true],
    ['a mixed-mode tool counts as a writer', { name: 'n', effects: { mode: 'mixed' } }, true],
    ['an enabled writer with a version passes', { name: 'n', version: '0.1.0', effects: { mode: 'write' } }, false],
    ['a writer whose version is not semver fails', { name: 'n', version: 'latest', effects: { mode: 'write' } }, true],
    ['a reader without a version passes', { name: 'n', effects: { mode: 'read', sideEffects: 'none' } }, false],
    ['a disabled writer without a version passes', { name: 'n', enabled: false, effects: { mode: 'write' } }, false],
  ])('%s', (_what, tool, fails) => {
    const d = diffTool('n', undefined, tool);
    expect(d).toMatchObject({ status: 'added', class: 'added', fails, changes: [], newHash: toolHash(tool) });
    expect(d.oldHash).toBeUndefined();
  });
});

describe('diffCatalogs', () => {
  it('matches tools by merge key and reports each status, sorted by key', () => {
    const shared: Tool = { name: 'web.search', version: '1.0.0', effects: { mode: 'read', sideEffects: 'read_external_service' } };
    const scoped: Tool = { ...shared, scope: { personas: ['Researcher'] } };
    const gone: Tool = { name: 'files.delete', version: '1.0.0', effects: { mode: 'write' } };
    const diff = diffCatalogs(entries(shared, gone, scoped), entries({ ...scoped, description: 'quota' }, shared));
    expect(diff.tools.map((t) => [t.key, t.status])).toEqual([
      ['files.delete', 'removed'],
      ['web.search', 'unchanged'],
      ['web.search@Researcher', 'changed'],
    ]);
    expect(diff.tools[0]).toMatchObject({ class: 'relaxation', fails: false, oldHash: toolHash(gone) });
    expect(diff.tools[1]?.oldHash).toBe(diff.tools[1]?.newHash);
    expect(diff).toMatchObject({
      ok: true,
      summary: { added: 0, removed: 1, changed: 1, unchanged: 1, escalations: 0, relaxations: 0, neutral: 1, failing: 0 },
    });
  });

  it('is not ok when one tool escalates without a bump', () => {
    const before: Tool = { name: 'a', version: '1.0.0', effects: { mode: 'read' } };
    const diff = diffCatalogs(entries(before), entries({ ...before, effects: { mode: 'write' } }));
    expect(diff.ok).toBe(false);
    expect(diff.summary.failing).toBe(1);
  });
});
