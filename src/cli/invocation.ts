/**
 * How the person reading a hint should run toolcap again, from where they
 * are: the hints printed by `call`, `serve` and the MCP gateway name a
 * command that works as written, not a bare `toolcap` that is not on their
 * PATH in a checkout.
 * @module
 */
import { realpathSync } from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import { shellWord } from '../model/shell-word.js';

/** What decides the answer; the process's own by default (tests pass their own). */
export interface InvocationContext {
  env: Record<string, string | undefined>;
  /** The script node ran (`process.argv[1]`). */
  script: string | undefined;
  cwd: string;
}

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The command prefix: `toolcap` when that name on PATH is this very script,
 * `npx toolcap` when npm started us (`npm start`, `npx toolcap`: it works
 * from the same folder), otherwise `node <script>` (relative to the working
 * folder when that is shorter).
 * @example invocation({ env: { npm_command: 'exec' }, script: '/x/bin/toolcap.js', cwd: '/x' }) // 'npx toolcap'
 */
export function invocation(context: InvocationContext = { env: process.env, script: process.argv[1], cwd: process.cwd() }): string {
  const { env, script, cwd } = context;
  const self = script === undefined ? undefined : real(script);
  if (self !== undefined) {
    for (const dir of (env['PATH'] ?? '').split(delimiter)) {
      if (dir !== '' && real(join(dir, 'toolcap')) === self) return 'toolcap';
    }
  }
  if (env['npm_command'] !== undefined || env['npm_lifecycle_event'] !== undefined) return 'npx toolcap';
  if (script === undefined) return 'toolcap';
  const near = relative(cwd, script);
  return `node ${shellWord(near.length < script.length && !near.startsWith('..') ? near : script)}`;
}
