// Code identity and fresh code: an edited module (or a module it imports) is what the next call runs, and its identity says so.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { moduleProviderType } from '../../../src/runtime/providers/module.js';
import { importSpecifiers, moduleCodeIdentity } from '../../../src/runtime/providers/module-identity.js';
import type { ProviderInstance } from '../../../src/runtime/providers/types.js';
import { contextFor } from './contract.js';

const root = mkdtempSync(join(tmpdir(), 'toolcap-module-identity-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const made: ProviderInstance[] = [];
afterEach(async () => {
  for (const p of made.splice(0)) await p.close?.();
});

let n = 0;
/** Resolves once `ready()` holds, polling every 10 ms; fails after 10 s. */
async function until(ready: () => boolean): Promise<void> {
  for (const end = Date.now() + 10_000; !ready(); ) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}
/** A fresh layer folder holding `files`. */
function layer(files: Record<string, string>): string {
  const dir = join(root, `layer-${++n}`);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

function make(dir: string, isolation: 'worker' | 'inline' = 'worker', module = './main.mjs'): ProviderInstance {
  const p = moduleProviderType.create({ name: 'm', config: { module, isolation } }, { name: 't' }, { env: {}, baseDir: dir });
  made.push(p);
  return p;
}

const MAIN = "import { word } from './lib/word.mjs';\nexport default () => word;\n";

describe('importSpecifiers', () => {
  it.each([
    ["import a from './a.mjs';", ['./a.mjs']],
    ["import { a,\n  b } from \"./a.mjs\"", ['./a.mjs']],
    ["import './side.mjs';", ['./side.mjs']],
    ["export * from '../up.mjs'; export { x } from 'pkg/sub';", ['../up.mjs', 'pkg/sub']],
    ["const m = await import('./lazy.mjs');", ['./lazy.mjs']],
    ["const fs = require('node:fs'); const l = require('./l.cjs');", ['node:fs', './l.cjs']],
    ["const dynamic = await import(name);", []],
  ])('%s', (source, expected) => {
    expect(importSpecifiers(source)).toEqual(expected);
  });
});

describe('codeIdentity', () => {
  it('is stable, and changes with the module file and with a local import, transitively', async () => {
    const dir = layer({ 'main.mjs': MAIN, 'lib/word.mjs': "export { word } from './deep.mjs';\n", 'lib/deep.mjs': "export const word = 'one';\n", 'unrelated.mjs': '1;\n' });
    const p = make(dir);
    const first = await p.codeIdentity?.();
    expect(first).toMatch(/^module:sha256:[0-9a-f]{64}$/);
    expect(await make(dir).codeIdentity?.()).toBe(first);
    writeFileSync(join(dir, 'unrelated.mjs'), '2;\n');
    expect(await p.codeIdentity?.()).toBe(first);
    writeFileSync(join(dir, 'lib/deep.mjs'), "export const word = 'two';\n");
    const second = await p.codeIdentity?.();
    expect(second).not.toBe(first);
    writeFileSync(join(dir, 'main.mjs'), `${MAIN}// reviewed\n`);
    expect(await p.codeIdentity?.()).not.toBe(second);
  });

  it('names the export it runs', () => {
    const dir = layer({ 'main.mjs': 'export const a = () => 1, b = () => 2;\n' });
    const entry = { kind: 'file', path: join(dir, 'main.mjs') } as const;
    expect(moduleCodeIdentity(entry, 'a')).not.toBe(moduleCodeIdentity(entry, 'b'));
  });

  it('names a package import by its version', () => {
    const dir = layer({
      'main.mjs': "import x from 'dep';\nexport default x;\n",
      'node_modules/dep/package.json': '{ "name": "dep", "version": "1.0.0" }',
    });
    const entry = { kind: 'file', path: join(dir, 'main.mjs') } as const;
    const v1 = moduleCodeIdentity(entry, 'default');
    writeFileSync(join(dir, 'node_modules/dep/package.json'), '{ "name": "dep", "version": "1.0.1" }');
    expect(moduleCodeIdentity(entry, 'default')).not.toBe(v1);
  });

  it('a missing import is part of the identity, and so is its arrival', () => {
    const dir = layer({ 'main.mjs': "import './later.mjs';\nexport default () => 1;\n" });
    const entry = { kind: 'file', path: join(dir, 'main.mjs') } as const;
    const before = moduleCodeIdentity(entry, 'default');
    writeFileSync(join(dir, 'later.mjs'), '');
    expect(moduleCodeIdentity(entry, 'default')).not.toBe(before);
  });
});

describe('fresh code without a restart', () => {
  it('worker: an edited module and an edited local import are what the next call runs', async () => {
    const dir = layer({ 'main.mjs': MAIN, 'lib/word.mjs': "export const word = 'one';\n" });
    const p = make(dir);
    await expect(p.call({}, contextFor())).resolves.toBe('one');
    writeFileSync(join(dir, 'lib/word.mjs'), "export const word = 'two';\n");
    await expect(p.call({}, contextFor())).resolves.toBe('two');
    writeFileSync(join(dir, 'main.mjs'), "import { word } from './lib/word.mjs';\nexport default () => `${word}!`;\n");
    await expect(p.call({}, contextFor())).resolves.toBe('two!');
  });

  it('inline: an edited module file is what the next call runs', async () => {
    const dir = layer({ 'main.mjs': "export default () => 'one';\n" });
    const p = make(dir, 'inline');
    await expect(p.call({}, contextFor())).resolves.toBe('one');
    writeFileSync(join(dir, 'main.mjs'), "export default () => 'two';\n");
    await expect(p.call({}, contextFor())).resolves.toBe('two');
  });

  it('a module fixed after failing to load is healthy and runs', async () => {
    const dir = layer({ 'main.mjs': "throw new Error('not yet');\n" });
    const p = make(dir);
    await expect(p.call({}, contextFor())).rejects.toMatchObject({ code: 'PROVIDER_UNAVAILABLE' });
    expect(p.ready?.().healthy).toBe(false);
    writeFileSync(join(dir, 'main.mjs'), "export default () => 'fixed';\n");
    expect(p.ready?.()).toEqual({ healthy: true });
    await expect(p.call({}, contextFor())).resolves.toBe('fixed');
  });

  it('calls in flight finish on the version they started with', async () => {
    // the module says when the call runs (a marker file), so the edit lands while it is in flight, however loaded the machine
    const dir = layer({ 'main.mjs': `import { writeFileSync } from 'node:fs';\nexport default async () => { writeFileSync(${JSON.stringify(join(root, `running-${n + 1}`))}, ''); await new Promise((r) => setTimeout(r, 300)); return 'old'; };\n` });
    const p = make(dir);
    const inFlight = p.call({}, contextFor());
    await until(() => existsSync(join(root, `running-${n}`)));
    writeFileSync(join(dir, 'main.mjs'), "export default () => 'new';\n");
    await expect(p.call({}, contextFor())).resolves.toBe('new');
    await expect(inFlight).resolves.toBe('old');
  });

  it('a call still waiting for its worker to load also finishes on the version it started with', async () => {
    // the module marks that it is loading, then takes a second: the edit (and the retirement of this worker) lands while the call waits
    const dir = layer({ 'main.mjs': `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(join(root, `loading-${n + 1}`))}, '');\nawait new Promise((r) => setTimeout(r, 1000));\nexport default () => 'old';\n` });
    const p = make(dir);
    const waiting = p.call({}, contextFor());
    await until(() => existsSync(join(root, `loading-${n}`)));
    writeFileSync(join(dir, 'main.mjs'), "export default () => 'new';\n");
    await expect(p.call({}, contextFor())).resolves.toBe('new');
    await expect(waiting).resolves.toBe('old');
  });
});
