#!/usr/bin/env node
// `npm start` (and the bench) build only when a source is newer than the last
// build, so a start is instant after the first: `tsc` takes ~13 s here and used
// to run, silently, on every start. The last build's time is dist/index.js's
// (tsc rewrites every output it emits). Exit code: tsc's, or 0.
// TOOLCAP_BUILD_DRY_RUN=1 only says whether it would build (tests use it).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = process.env.TOOLCAP_BUILD_ROOT ?? fileURLToPath(new URL('..', import.meta.url));

function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs; // a deleted or renamed file changes its folder
  for (const name of readdirSync(path)) latest = Math.max(latest, newest(join(path, name)));
  return latest;
}

const built = statSync(join(root, 'dist', 'index.js'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
const sources = Math.max(newest(join(root, 'src')), ...['tsconfig.json', 'tsconfig.build.json', 'package.json'].map((f) => newest(join(root, f))));
if (built >= sources) process.exit(0);
process.stderr.write(built === 0 ? 'toolcap: no build yet; building (tsc)…\n' : 'toolcap: sources changed since the last build; building (tsc)…\n');
if (process.env.TOOLCAP_BUILD_DRY_RUN === '1') process.exit(0);
const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
process.exit(tsc.status ?? 1);
