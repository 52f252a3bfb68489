import { describe, expect, it } from 'vitest';
import { annotation } from '../../src/cli/diff.js';
import { cli } from './helpers.js';

const F = 'test/fixtures/diff';
const pair = (name: string): [string, string] => [`${F}/${name}/old.yaml`, `${F}/${name}/new.yaml`];

interface JsonDiff {
  ok: boolean;
  tools: Array<Record<string, unknown> & { key: string; changes: Array<Record<string, unknown>> }>;
  summary: Record<string, number>;
}
const json = async (...argv: string[]) => {
  const r = await cli('diff', ...argv, '--json');
  return { code: r.code, out: JSON.parse(r.stdout) as JsonDiff };
};

describe('toolcap diff: exit codes', () => {
  it.each<[string, string[], number]>([
    ['a quiet read -> write change without a bump', pair('quiet-write'), 1],
    ['a dropped approval and consent', pair('dropped-approval'), 1],
    ['a neutral description change', pair('description'), 0],
    ['escalations with a version bump', pair('bumped'), 0],
    ['relaxations only', pair('relaxed'), 0],
    ['a new writing tool without a version', pair('added-removed'), 1],
    ['the same tool in ATLAS and in canonical YAML', [`${F}/cross-dialect/old`, `${F}/cross-dialect/same.yaml`], 0],
    ['ATLAS -> canonical YAML with escalations and no bump', [`${F}/cross-dialect/old/functions.json`, `${F}/cross-dialect/escalated.yaml`], 1],
    ['identical sides', [`${F}/bumped/new.yaml`, `${F}/bumped/new.yaml`], 0],
    ['a broken new side', [`${F}/dropped-approval/old.yaml`, `${F}/broken/new.yaml`], 1],
    ['a broken old side', [`${F}/broken/new.yaml`, `${F}/dropped-approval/old.yaml`], 1],
    ['a missing old path', ['does/not/exist', `${F}/bumped/new.yaml`], 2],
    ['a missing new path', [`${F}/bumped/old.yaml`, 'does/not/exist'], 2],
    ['one path only', [`${F}/bumped/old.yaml`], 2],
    ['three paths', [...pair('bumped'), `${F}/relaxed/new.yaml`], 2],
    ['an unknown --format', [...pair('bumped'), '--format', 'gitlab'], 2],
    ['--json with --format', [...pair('bumped'), '--json', '--format', 'github'], 2],
  ])('%s %j -> exit %i', async (_what, argv, code) => {
    expect((await cli('diff', ...argv)).code).toBe(code);
  });
});

describe('toolcap diff: text', () => {
  it('prints one line per changed tool, then a summary line', async () => {
    const { stdout } = await cli('diff', ...pair('quiet-write'));
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3); // the changed tool, the legend for derived values, the summary
    expect(lines[0]).toMatch(/^~ reports\.export 1\.0\.0 -> 1\.0\.0: escalation, not bumped \(fails\); /);
    expect(lines[0]).toContain('effects.mode read -> write* escalation');
    expect(lines[0]).toMatch(/sha256:[0-9a-f]{64} -> sha256:[0-9a-f]{64}$/);
    expect(stdout).not.toContain('reports.list');
    expect(lines[2]).toBe('1 changed, 0 added, 0 removed, 1 unchanged; 4 escalations, 2 relaxations, 1 neutral; 1 tool failing: reports.export');
  });

  it('marks added and removed tools', async () => {
    const { stdout } = await cli('diff', ...pair('added-removed'));
    expect(stdout).toMatch(/^\+ notes\.append unversioned: added, writes and has no version \(fails\); sha256:/m);
    expect(stdout).toMatch(/^- notes\.purge 1\.0\.0: removed relaxation; sha256:/m);
    expect(stdout).toMatch(/^\+ notes\.search unversioned: added; sha256:/m);
  });

  it('prints the errors of a broken side and refuses to diff', async () => {
    const { code, stdout, stderr } = await cli('diff', `${F}/dropped-approval/old.yaml`, `${F}/broken/new.yaml`);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(`${F}/broken/new.yaml:5:42: error UNKNOWN_ENUM_VALUE`);
    expect(stderr).toContain('cannot diff a broken manifest');
  });
});

describe('toolcap diff --json', () => {
  it('has the documented shape, with every tool and its hashes', async () => {
    const { code, out } = await json(...pair('quiet-write'));
    expect(code).toBe(1);
    expect(Object.keys(out).sort()).toEqual(['ok', 'summary', 'tools']);
    expect(out.ok).toBe(false);
    expect(out.tools.map((t) => [t.key, t.status])).toEqual([
      ['reports.export', 'changed'],
      ['reports.list', 'unchanged'],
    ]);
    for (const t of out.tools) {
      expect(Object.keys(t)).toEqual(
        expect.arrayContaining(['key', 'status', 'class', 'oldHash', 'newHash', 'oldVersion', 'newVersion', 'bumped', 'fails', 'file', 'line', 'changes']),
      );
      expect(t['oldHash']).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(t['newHash']).toMatch(/^sha256:[0-9a-f]{64}$/);
      for (const c of t.changes) expect(Object.keys(c)).toEqual(expect.arrayContaining(['field', 'class', 'old', 'new', 'oldDerived', 'newDerived']));
    }
    const [changed, same] = out.tools;
    expect(same?.['oldHash']).toBe(same?.['newHash']);
    expect(changed).toMatchObject({ oldVersion: '1.0.0', newVersion: '1.0.0', bumped: false, fails: true, class: 'escalation', file: `${F}/quiet-write/new.yaml`, line: 8 });
    expect(changed?.changes).toContainEqual({ field: 'effects.mode', class: 'escalation', old: 'read', new: 'write', oldDerived: false, newDerived: true });
    expect(out.summary).toEqual({ added: 0, removed: 0, changed: 1, unchanged: 1, escalations: 4, relaxations: 2, neutral: 1, failing: 1 });
  });

  it('uses null for what a side does not have', async () => {
    const { out } = await json(...pair('added-removed'));
    expect(out.tools.find((t) => t.key === 'notes.append')).toMatchObject({ status: 'added', oldHash: null, oldVersion: null, newVersion: null, fails: true });
    expect(out.tools.find((t) => t.key === 'notes.purge')).toMatchObject({ status: 'removed', newHash: null, file: null, line: null });
  });

  it('dropping approval and consent are both escalations', async () => {
    const { out } = await json(...pair('dropped-approval'));
    expect(out.tools[0]?.changes).toEqual([
      { field: 'approval.consent', class: 'escalation', old: true, new: null, oldDerived: false, newDerived: false },
      { field: 'approval.required', class: 'escalation', old: true, new: false, oldDerived: false, newDerived: false },
    ]);
  });

  it('a description change is neutral and ok', async () => {
    const { code, out } = await json(...pair('description'));
    expect(code).toBe(0);
    expect(out.ok).toBe(true);
    expect(out.tools[0]).toMatchObject({ status: 'changed', class: 'neutral', fails: false });
    expect(out.tools[0]?.changes.map((c) => c.field)).toEqual(['description', 'tags']); // key order is not a change
  });

  it('the same tool read from ATLAS and from canonical YAML is unchanged, with one hash', async () => {
    const { out } = await json(`${F}/cross-dialect/old`, `${F}/cross-dialect/same.yaml`);
    expect(out.tools).toHaveLength(1);
    expect(out.tools[0]).toMatchObject({ key: 'files.remove', status: 'unchanged', changes: [] });
    expect(out.tools[0]?.['oldHash']).toBe(out.tools[0]?.['newHash']);
  });

  it('classifies changes across dialects', async () => {
    const { out } = await json(`${F}/cross-dialect/old`, `${F}/cross-dialect/escalated.yaml`);
    const classes = Object.fromEntries((out.tools[0]?.changes ?? []).map((c) => [c['field'], c['class']]));
    expect(classes).toEqual({
      'auth.scopes': 'escalation',
      'effects.risk': 'escalation',
      'effects.sideEffects': 'escalation',
      providers: 'escalation',
      description: 'neutral',
      inputSchema: 'neutral',
    });
    expect(out.tools[0]?.changes.find((c) => c['field'] === 'inputSchema')?.['notes']).toEqual(['adds required parameter "recursive"']);
  });

  it('reports a broken side as data', async () => {
    const { code, out } = await json(`${F}/dropped-approval/old.yaml`, `${F}/broken/new.yaml`);
    expect(code).toBe(1);
    expect(out).toMatchObject({ ok: false, error: 'cannot diff a broken manifest', diagnostics: [{ code: 'UNKNOWN_ENUM_VALUE', line: 5 }] });
  });
});

describe('toolcap diff --format github', () => {
  it.each<[string, [string, string], string]>([
    ['an escalation without a bump is an error', pair('dropped-approval'), `::error file=${F}/dropped-approval/new.yaml,line=3,title=toolcap diff::files.delete: escalation without a version bump (1.0.0 -> 1.0.0): `],
    ['an escalation with a bump is a warning', pair('bumped'), `::warning file=${F}/bumped/new.yaml,line=3,title=toolcap diff::github.create_pull_request: escalation with version bump 1.0.0 -> 1.1.0: `],
    ['a relaxation is a notice', pair('relaxed'), `::notice file=${F}/relaxed/new.yaml,line=3,title=toolcap diff::db.migrate: relaxation: `],
    ['a new writer without a version is an error', pair('added-removed'), `::error file=${F}/added-removed/new.yaml,line=8,title=toolcap diff::notes.append: new tool that writes`],
    ['a new reader is a notice', pair('added-removed'), `::notice file=${F}/added-removed/new.yaml,line=6,title=toolcap diff::notes.search: new tool`],
    ['a removed tool is a notice without a file', pair('added-removed'), '::notice title=toolcap diff::notes.purge: removed (relaxation).'],
  ])('%s', async (_what, [from, to], line) => {
    const { stdout } = await cli('diff', from, to, '--format', 'github');
    expect(stdout.split('\n').some((l) => l.startsWith(line))).toBe(true);
  });

  it('prints nothing for neutral changes but the summary', async () => {
    const { code, stdout } = await cli('diff', ...pair('description'), '--format', 'github');
    expect(code).toBe(0);
    expect(stdout).toBe('1 changed, 0 added, 0 removed, 0 unchanged; 0 escalations, 0 relaxations, 2 neutral; ok\n');
  });

  it('annotates the errors of a broken side at their positions', async () => {
    const { stdout } = await cli('diff', `${F}/dropped-approval/old.yaml`, `${F}/broken/new.yaml`, '--format', 'github');
    expect(stdout).toMatch(new RegExp(`^::error file=${F}/broken/new\\.yaml,line=5,col=42,title=UNKNOWN_ENUM_VALUE::`, 'm'));
  });

  it('escapes workflow-command data and properties', () => {
    expect(annotation('error', { file: 'a,b:c.yaml', line: 3, col: undefined }, '50% done\nnext')).toBe('::error file=a%2Cb%3Ac.yaml,line=3::50%25 done%0Anext\n');
  });
});
