import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const bin = new URL('../../bin/toolcap.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'toolcap-pipe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// 3,000 OpenAI tools: every command below writes far more than a pipe holds (64 KB)
const catalog = join(dir, 'tools.json');
writeFileSync(catalog, JSON.stringify(Array.from({ length: 3000 }, (_, i) => ({ type: 'function', function: { name: `tool_${i}`, description: `Reads record ${i} of the archive. `.repeat(4), parameters: { type: 'object', properties: {} } } }))));

/** Runs the CLI, reads its first chunk of output, then closes the pipe as `| head` does. */
function readOneChunk(args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; first: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let first = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.once('data', (d: Buffer) => {
      first = d.toString();
      child.stdout.destroy();
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr, first }));
  });
}

describe('a reader that closes the pipe early (`toolcap … | head`)', () => {
  it.each([
    [['list', catalog, '--json']],
    [['inspect', catalog, '--json']],
    [['convert', catalog, '--to', 'mcp']],
  ])('%j ends with 141, as on SIGPIPE, and no stack trace', async (args) => {
    const r = await readOneChunk(args);
    expect(r.first.length).toBeGreaterThan(0);
    expect(r.stderr).not.toMatch(/Unhandled 'error' event|EPIPE|at /);
    expect(r.code).toBe(141);
  });
});
