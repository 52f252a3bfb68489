/**
 * A TypeScript test child compiled once per test file, run with plain
 * `node`. Spawning each child through vite-node transpiled the sources it
 * imports again on every start (6-7 s of a loaded 2-core machine per
 * process, a second or less this way); esbuild bundles the current sources
 * (never a stale `dist/`) in about half a second, npm packages left
 * external so they load from node_modules as in any run.
 *
 * The bundle is written two folders below the repository root
 * (`test-artifacts/child-XXXXXX/`), the depth of a module in `src/<stage>/`:
 * the sources' `new URL('../../data/...', import.meta.url)` lookups reach the
 * same files as from `src/`, and node_modules resolves from there. No
 * compiled `build-worker.js` lies beside it, so the registry builds on the
 * main thread, as it does under vite-node. `require` is a real one made
 * for the bundle's folder, as `createRequire(import.meta.url)` in src/
 * would give.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A bundled child: `file` to run with `process.execPath`, `remove()` when the test file is done. */
export interface ChildBundle {
  file: string;
  remove(): void;
}

/**
 * Bundles `entry` (a test child in TypeScript) into one ES module.
 * @example
 * const child = await bundleChild(new URL('./toolcap-child.ts', import.meta.url));
 * spawn(process.execPath, [child.file, 'call', ...]);
 */
export async function bundleChild(entry: URL): Promise<ChildBundle> {
  const parent = join(ROOT, 'test-artifacts');
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, 'child-'));
  const file = join(dir, basename(fileURLToPath(entry)).replace(/\.ts$/, '.mjs'));
  await build({
    entryPoints: [fileURLToPath(entry)],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node.split('.')[0]}`,
    packages: 'external',
    // a real `require` for the sources' createRequire fallbacks (better-sqlite3 is loaded that way); esbuild's ESM shim throws
    banner: { js: "import { createRequire as __toolcapCreateRequire } from 'node:module'; const require = __toolcapCreateRequire(import.meta.url);" },
    logLevel: 'error',
  });
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
