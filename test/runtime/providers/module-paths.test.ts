// Containment of module tools: a module loads only from its manifest's folder or a trusted folder.
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { moduleProviderType } from '../../../src/runtime/providers/module.js';
import { moduleAllowed } from '../../../src/load/module-paths.js';
import type { ProviderEnvironment } from '../../../src/runtime/providers/types.js';
import { contextFor, rejection } from './contract.js';

// root/layer/manifests is the manifest's folder; root/outside is not; root/trusted is when configured.
const root = mkdtempSync(join(tmpdir(), 'toolcap-module-paths-'));
const layer = join(root, 'layer', 'manifests');
const outside = join(root, 'outside');
const trusted = join(root, 'trusted');
for (const dir of [layer, outside, trusted, join(layer, 'lib')]) mkdirSync(dir, { recursive: true });
const MARKER = join(root, 'evil-ran');
// Importing it leaves a mark: a refused module must never be imported.
const EVIL = `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(MARKER)}, 'ran');\nexport default (args) => args;\n`;
writeFileSync(join(outside, 'evil.mjs'), EVIL);
writeFileSync(join(trusted, 'shared.mjs'), 'export default (args) => ({ shared: args });\n');
writeFileSync(join(layer, 'lib', 'ok.mjs'), 'export default (args) => ({ ok: args });\n');
symlinkSync(join(outside, 'evil.mjs'), join(layer, 'link-out.mjs'));
symlinkSync(join(layer, 'lib', 'ok.mjs'), join(layer, 'link-in.mjs'));
symlinkSync(outside, join(layer, 'dir-out'));

afterAll(() => rmSync(root, { recursive: true, force: true }));

const refused: Array<[string, string]> = [
  ['a parent-relative path out of the folder', '../../outside/evil.mjs'],
  ['an absolute path outside', join(outside, 'evil.mjs')],
  ['a file: URL outside', pathToFileURL(join(outside, 'evil.mjs')).href],
  ['a symlink leading outside', './link-out.mjs'],
  ['a file under a symlinked folder leading outside', './dir-out/evil.mjs'],
  ['a node: built-in', 'node:os'],
  ['a bare built-in', 'child_process'],
  ['a data: URL', 'data:text/javascript,export default () => 1'],
  ['a package installed outside the folder', 'yaml'],
];

describe('moduleAllowed', () => {
  it.each(refused)('refuses %s', (_label, spec) => {
    const verdict = moduleAllowed(spec, layer, []);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toContain(spec.startsWith('data:') ? 'URL' : spec.split('/').pop());
  });

  it.each([
    ['a relative path inside', './lib/ok.mjs', join(layer, 'lib', 'ok.mjs')],
    ['a symlink inside leading inside', './link-in.mjs', join(layer, 'lib', 'ok.mjs')],
    ['a file that does not exist yet', './lib/later.mjs', join(layer, 'lib', 'later.mjs')],
    ['a trusted folder', join(trusted, 'shared.mjs'), join(trusted, 'shared.mjs')],
  ])('allows %s, at its real path', (_label, spec, path) => {
    expect(moduleAllowed(spec, layer, [trusted])).toEqual({ ok: true, entry: { kind: 'file', path } });
  });

  it('a prefix of the folder name is not the folder', () => {
    mkdirSync(`${layer}-evil`, { recursive: true });
    expect(moduleAllowed(`${layer}-evil/x.mjs`, layer, []).ok).toBe(false);
  });
});

describe('the module provider refuses what it may not load', () => {
  const env = (extra: Partial<ProviderEnvironment> = {}): ProviderEnvironment => ({ env: {}, baseDir: layer, ...extra });

  it.each(refused)('%s: unavailable with the reason, and nothing runs', async (_label, module) => {
    for (const isolation of ['worker', 'inline']) {
      const p = moduleProviderType.create({ name: 'm', config: { module, isolation } }, { name: 't' }, env());
      const ready = p.ready?.();
      expect(ready?.healthy).toBe(false);
      const err = await rejection(p.call({ a: 1 }, contextFor()));
      expect(err).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', beforeEffect: true, message: ready?.reason });
      await expect(p.codeIdentity?.()).resolves.toMatch(/^module:sha256:/);
    }
    expect(existsSync(MARKER)).toBe(false);
  });

  it('runs a module from a folder the config trusts', async () => {
    const p = moduleProviderType.create({ name: 'm', config: { module: join(trusted, 'shared.mjs') } }, { name: 't' }, env({ trustedModuleDirs: [trusted] }));
    expect(p.ready?.()).toEqual({ healthy: true });
    await expect(p.call({ a: 1 }, contextFor())).resolves.toEqual({ shared: { a: 1 } });
    await p.close?.();
  });

  it('refuses at the next call a file swapped for a symlink leading outside', async () => {
    const file = join(layer, 'swapped.mjs');
    writeFileSync(file, 'export default () => "inside";\n');
    const p = moduleProviderType.create({ name: 'm', config: { module: './swapped.mjs' } }, { name: 't' }, env());
    await expect(p.call({}, contextFor())).resolves.toBe('inside');
    rmSync(file);
    symlinkSync(join(outside, 'evil.mjs'), file);
    expect(await rejection(p.call({}, contextFor()))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', beforeEffect: true });
    expect(existsSync(MARKER)).toBe(false);
    await p.close?.();
  });
});
