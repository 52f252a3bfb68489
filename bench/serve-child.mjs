// `toolcap serve` as a child process for the benches that measure a real
// server (its resident memory, its MCP endpoint): started on a free port,
// answered once it prints its URL.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/toolcap.js', import.meta.url));

/** Resident memory of process `pid` in bytes (Linux /proc). */
export const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;

/**
 * `toolcap serve --no-watch --port 0 <paths…>` as a child; resolves with the
 * child and the base URL it printed, rejects when it ends first.
 * @example const { child, url } = await serveChild([spec]); … child.kill();
 */
export async function serveChild(paths) {
  const child = spawn(process.execPath, [BIN, 'serve', '--no-watch', '--port', '0', ...paths], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr.on('data', () => {});
  let printed = '';
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      printed += d;
      const m = / at (https?:\/\/\S+)/.exec(printed);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve ended (${code})`)));
  });
  return { child, url };
}
