import { run } from '../../src/cli/program.js';
import { yieldToRunner } from '../helpers/yield-to-runner.js';

/** Run the CLI in-process and capture what it prints. */
export async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  // a test that runs many commands in a loop would otherwise hold its worker off the event loop for all of them
  await yieldToRunner();
  const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

/** A `toolcap serve` running in-process: its URL, what it printed so far, and how to stop it. */
export interface ServedCli {
  url: string;
  stdout: () => string;
  stderr: () => string;
  stop: () => Promise<number>;
}

/** `toolcap serve` in-process (port 0, no watching) until `stop()`; resolves once it prints its URL. */
export async function serveCli(argv: string[], env?: Record<string, string>): Promise<ServedCli> {
  const controller = new AbortController();
  let stdout = '';
  let stderr = '';
  const done = run(['serve', '--port', '0', '--no-watch', ...argv], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), signal: controller.signal, ...(env ? { env } : {}) });
  let finished: number | undefined;
  void done.then((code) => (finished = code));
  const end = Date.now() + 15_000;
  while (!/ at (https?:\/\/\S+)/.test(stdout)) {
    if (finished !== undefined) throw new Error(`serve ended early (${finished}): ${stderr}`);
    if (Date.now() > end) throw new Error(`serve printed no URL: ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { url: / at (https?:\/\/\S+)/.exec(stdout)![1]!, stdout: () => stdout, stderr: () => stderr, stop: async () => (controller.abort(), done) };
}
