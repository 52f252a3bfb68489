// A build with a memo hands the files it did not change their last tool
// entries whole (registry/tool-reuse.ts) when the changed files stand apart,
// and merges afresh otherwise. Either way the result must be the full
// build's: here a sequence of edits, each the kind that creates or removes a
// cross-file name collision or override, a dangling reference, a broken or
// missing file, a layer order change, is built with one memo across all of
// them and held equal to a fresh build on every part of the result; and each
// step says whether the entries were reused (the very entry objects of the
// step before) or not.
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BuildMemo, catalogEtag } from '../../src/registry/build-memo.js';
import { buildCatalog, type CatalogOptions, type CatalogResult } from '../../src/registry/catalog.js';
import { documentEtag } from '../../src/registry/etag.js';
import { catalogDocument } from '../../src/registry/catalog.js';

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

type ToolDoc = { name: string; [field: string]: unknown };
const tool = (name: string, extra: object = {}): ToolDoc => ({ name, description: `The ${name} tool.`, effects: { mode: 'read' }, ...extra });
/** `count` tools `<prefix>.tN`; every 4th scoped to atlas. */
const tools = (prefix: string, count = 6) => Array.from({ length: count }, (_, i) => tool(`${prefix}.t${i}`, i % 4 === 3 ? { scope: { personas: ['atlas'] } } : {}));

/** base/ (a, b, c, d, e, z; c holds a skill and an agent naming tools of a and b) and over/ (a policy layer). */
function fixture() {
  const root = mkdtempSync(join(tmpdir(), 'toolcap-tool-reuse-'));
  made.push(root);
  const base = join(root, 'base');
  const over = join(root, 'over');
  mkdirSync(base);
  mkdirSync(over);
  const write = (file: string, doc: object) => writeFileSync(file, JSON.stringify({ toolcap: 1, ...doc }));
  const files = {
    a: (list: ToolDoc[]) => write(join(base, 'a.json'), { tools: list }),
    b: (list: ToolDoc[]) => write(join(base, 'b.json'), { tools: list }),
    c: (list: ToolDoc[]) =>
      write(join(base, 'c.json'), { tools: list, skills: [{ name: 'review', tools: ['a.t0', 'b.t5'] }], agents: [{ name: 'coder', skills: ['review'] }] }),
    policy: (list: object[]) => write(join(over, 'policy.json'), { tools: list }),
    d: (list: ToolDoc[]) => write(join(base, 'd.json'), { tools: list }),
    e: (list: ToolDoc[]) => write(join(base, 'e.json'), { tools: list }),
    override: (list: object[]) => write(join(base, 'local_overrides.json'), { tools: list }),
  };
  files.a(tools('a'));
  files.b(tools('b'));
  files.c(tools('c'));
  files.d(tools('d', 20));
  files.e(tools('e', 3));
  write(join(base, 'z.json'), { tools: tools('z', 60) }); // never changed: most of the catalog, as in a one-file reload
  files.policy([{ name: 'a.t1', approval: { required: true } }, { name: 'c.t2', enabled: false }]);
  return { root, base, over, files, paths: [base, over] };
}

/** Every part of a build's result, as plain data. */
function observed(result: CatalogResult) {
  const { catalog } = result;
  return {
    tools: catalog.tools,
    bundles: catalog.bundles,
    skills: catalog.skills,
    agents: catalog.agents,
    jobs: catalog.jobs,
    documents: [...catalog.documents.keys()],
    diagnostics: result.diagnostics,
    unreadable: result.unreadable,
    sources: [...result.sources],
  };
}

describe('tool entries reused whole from the last build equal a full build', () => {
  it.each([
    { name: 'without options', options: {} },
    { name: 'with an audit gate', options: { allowAuditStatus: ['trusted' as const] } },
  ])('over a sequence of edits that make and break cross-file relations ($name)', ({ options }: { options: CatalogOptions }) => {
    const f = fixture();
    const memo = new BuildMemo();
    let paths = f.paths;
    let last = buildCatalog(paths, { ...options, memo }).catalog.tools;
    const steps: Array<[string, boolean, () => void]> = [
      ['a tool of b edited', true, () => f.files.b(tools('b').map((t, i) => (i === 2 ? { ...t, description: 'Edited.' } : t)))],
      ['nothing changed', true, () => undefined],
      ['b renames a tool to a name of a (a duplicate in one layer)', false, () => f.files.b([...tools('b').slice(1), tool('a.t4')])],
      ['the duplicate renamed away again', false, () => f.files.b(tools('b'))],
      ['b edited with nothing else involved', true, () => f.files.b(tools('b').map((t, i) => (i === 0 ? { ...t, description: 'Again.' } : t)))],
      ['b drops b.t5, which a skill of c names (a dangling reference in an unchanged file)', true, () => f.files.b(tools('b', 5))],
      ['b declares c.t2, which the policy layer overrides (an override made)', false, () => f.files.b([...tools('b', 5), tool('c.t2')])],
      ['c drops c.t2: the policy now overrides b\'s', false, () => f.files.c(tools('c').filter((t) => t.name !== 'c.t2'))],
      ['b drops c.t2 again: the policy overrides nothing', false, () => f.files.b(tools('b', 5))],
      ['b declares a tool twice itself', false, () => f.files.b([...tools('b', 5), tool('b.t1')])],
      ['b with findings of its own (a bad name)', false, () => f.files.b([...tools('b', 5), tool('B.Bad')])],
      ['b edited beside the finding', true, () => f.files.b([...tools('b', 5), tool('B.Bad', { description: 'Still bad.' })])],
      ['a tool moves from d to e (two files changed)', true, () => {
        f.files.d(tools('d', 19));
        f.files.e([tool('d.t19'), ...tools('e', 3)]);
      }],
      ['b cannot be parsed', false, () => writeFileSync(join(f.base, 'b.json'), '{ "toolcap": 1, "tools": [')],
      ['b mended', false, () => f.files.b(tools('b', 6))],
      ['b removed', false, () => unlinkSync(join(f.base, 'b.json'))],
      ['b back', false, () => f.files.b(tools('b', 6))],
      ['the layers in the other order', false, () => (paths = [f.over, f.base])],
      ['b edited in the reordered layers', true, () => f.files.b(tools('b').map((t, i) => (i === 0 ? { ...t, description: 'Reordered.' } : t)))],
      ['back in order', false, () => (paths = f.paths)],
      ['an override file added to base', false, () => f.files.override([{ name: 'a.t0', enabled: false }])],
      ['the override file changed', false, () => f.files.override([{ name: 'a.t0', description: 'Overridden.' }])],
      ['a base file changed beside the override file', true, () => f.files.b(tools('b').map((t, i) => (i === 1 ? { ...t, description: 'Beside.' } : t)))],
      ['a base file changed under the override', false, () => f.files.a(tools('a').map((t, i) => (i === 0 ? { ...t, description: 'Under.' } : t)))],
    ];
    for (const [what, reuses, change] of steps) {
      change();
      const got = buildCatalog(paths, { ...options, memo });
      const want = buildCatalog(paths, options);
      expect.soft(observed(got), what).toEqual(observed(want));
      const etag = catalogEtag(got.catalog, memo);
      expect.soft(etag, what).toBe(documentEtag({ bundles: got.catalog.bundles, ...catalogDocument(want.catalog) }));
      // reused: the very entry objects of the build before, for the files that did not change
      const before = new Set(last);
      expect.soft(got.catalog.tools.some((e) => before.has(e)), what).toBe(reuses);
      last = got.catalog.tools;
    }
  });
});
