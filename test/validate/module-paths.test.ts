/**
 * MODULE_PATH_REFUSED: a module tool that would load from outside its
 * manifest's folder and the trusted folders is an error when the catalog is
 * built, at the line that names the module, whichever way it gets out
 * (parent path, absolute path, file: URL, a symlink, a built-in, a URL).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { moduleAllowed } from '../../src/load/module-paths.js';
import { buildCatalog } from '../../src/registry/catalog.js';
import { Registry } from '../../src/registry/registry.js';
import { displayPath } from '../../src/source/paths.js';

// root/layer/manifests holds the manifests; root/outside is elsewhere; root/trusted is trusted when configured.
const root = realpathSync(mkdtempSync(join(tmpdir(), 'toolcap-module-lint-')));
const layer = join(root, 'layer', 'manifests');
const outside = join(root, 'outside');
const trusted = join(root, 'trusted');
for (const dir of [join(layer, 'lib'), outside, trusted]) mkdirSync(dir, { recursive: true });
writeFileSync(join(outside, 'evil.mjs'), 'export default () => "evil";\n');
writeFileSync(join(trusted, 'shared.mjs'), 'export default () => "shared";\n');
writeFileSync(join(layer, 'lib', 'ok.mjs'), 'export default () => "ok";\n');
// the symlinks are made here, so the fixture folders need none checked in
symlinkSync(join(outside, 'evil.mjs'), join(layer, 'link-out.mjs'));
symlinkSync(outside, join(layer, 'dir-out'));
symlinkSync(join(layer, 'lib', 'ok.mjs'), join(layer, 'link-in.mjs'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let count = 0;
/** A manifest in the layer with one tool whose module provider loads `module`; its line of `module:` is line 7. */
function manifestWith(tool: string): string {
  const file = join(layer, `case-${count++}.yaml`);
  writeFileSync(file, `toolcap: 1\ntools:\n  - name: t${count}\n    description: d\n    effects: { mode: read, sideEffects: compute }\n${tool}`);
  return file;
}
const provider = (module: string) => `    providers:\n      - name: local\n        config: { type: module, module: ${JSON.stringify(module)} }\n`;

const REFUSED: Array<[string, string]> = [
  ['a parent-relative path out of the folder', '../../outside/evil.mjs'],
  ['an absolute path elsewhere', join(outside, 'evil.mjs')],
  ['a file: URL elsewhere', pathToFileURL(join(outside, 'evil.mjs')).href],
  ['a symlink leading outside', './link-out.mjs'],
  ['a file under a symlinked folder leading outside', './dir-out/evil.mjs'],
  ['a node: built-in', 'node:os'],
  ['a bare built-in', 'child_process'],
  ['a data: URL', 'data:text/javascript,export default () => 1'],
];

const refusals = (file: string, trustedModuleDirs: string[] = []) =>
  buildCatalog([file], { trustedModuleDirs }).diagnostics.filter((d) => d.code === 'MODULE_PATH_REFUSED');

describe('MODULE_PATH_REFUSED', () => {
  it.each(REFUSED)('%s: an error at the provider\'s config.module', (_label, module) => {
    const file = manifestWith(provider(module));
    expect(refusals(file)).toEqual([
      expect.objectContaining({ code: 'MODULE_PATH_REFUSED', severity: 'error', file: displayPath(file), line: 8, pointer: '/tools/0/providers/0/config/module' }),
    ]);
  });

  it.each(REFUSED)('%s: as implementation.module of a tool without providers', (_label, module) => {
    const file = manifestWith(`    implementation:\n      module: ${JSON.stringify(module)}\n`);
    expect(refusals(file)).toMatchObject([{ line: 7, pointer: '/tools/0/implementation/module' }]);
  });

  it('a module provider without config.module is judged by implementation.module', () => {
    const file = manifestWith(`    implementation: { module: node:os }\n    providers:\n      - { name: module }\n`);
    expect(refusals(file)).toMatchObject([{ pointer: '/tools/0/implementation/module', line: 6 }]);
  });

  it.each([
    ['a relative path inside', './lib/ok.mjs'],
    ['a symlink inside leading inside', './link-in.mjs'],
    ['a file that does not exist yet, inside', './lib/later.mjs'],
    ['a package that is not installed (readiness, not containment)', 'left-pad-never-installed'],
  ])('allows %s', (_label, module) => {
    expect(refusals(manifestWith(provider(module)))).toEqual([]);
  });

  it('allows a trusted folder only when the config trusts it', () => {
    const file = manifestWith(provider(join(trusted, 'shared.mjs')));
    expect(refusals(file)).toHaveLength(1);
    expect(refusals(file, [trusted])).toEqual([]);
  });

  it.each([
    ['a provider of another type', `    providers:\n      - { name: api, config: { type: http, baseUrl: "https://x.example", module: ../../outside/evil.mjs } }\n`],
    ['a Python implementation', `    implementation: { module: ../../outside/evil.py, language: python }\n`],
    ['an implementation beside providers that do not use it', `    implementation: { module: node:os }\n    providers:\n      - { name: api, config: { type: http, baseUrl: "https://x.example" } }\n`],
    ['a Pylot-style import path', `    implementation: { module: src.bridge.tools.git_status }\n`],
  ])('leaves alone %s', (_label, tool) => {
    expect(refusals(manifestWith(tool))).toEqual([]);
  });

  it('the Registry passes trustedModuleDirs on: a refused module fails the first load', async () => {
    const dir = join(root, 'registry-layer');
    mkdirSync(dir);
    writeFileSync(join(dir, 'tools.yaml'), `toolcap: 1\ntools:\n  - name: shared\n    description: d\n${provider(join(trusted, 'shared.mjs'))}`);
    const refused = new Registry({ paths: [dir] });
    expect(await refused.start()).toMatchObject({ kind: 'failed', diagnostics: [expect.objectContaining({ code: 'MODULE_PATH_REFUSED' })] });
    await refused.close();
    const allowed = new Registry({ paths: [dir], trustedModuleDirs: [trusted] });
    expect(await allowed.start()).toMatchObject({ kind: 'reloaded' });
    await allowed.close();
  });
});

describe('moduleAllowed says why it refuses', () => {
  it.each([
    ['node:os', 'builtin'],
    ['https://cdn.example/x.mjs', 'url'],
    ['left-pad-never-installed', 'unresolved'],
    ['../../outside/evil.mjs', 'outside'],
  ])('%s: %s', (spec, refusal) => {
    expect(moduleAllowed(spec, layer, [])).toMatchObject({ ok: false, refusal });
  });
});
