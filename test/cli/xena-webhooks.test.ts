/**
 * `toolcap serve --config examples/xena/toolcap.config.yaml` as a user runs
 * it, over a real socket: a signed Manus webhook starts the workflow once
 * and signals in order, a replay is ignored, the inbox is read and
 * acknowledged over HTTP; a webhooks section whose NATS cannot be reached
 * stops serve with a clear line and exit 2.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild, type ChildBundle } from '../helpers/child-bundle.js';
import { stopChild } from '../helpers/stop-child.js';

// the CLI compiled once for this file and run with node (through vite-node each start transpiled the sources again)
let toolcapChild: ChildBundle;
beforeAll(async () => {
  toolcapChild = await bundleChild(new URL('./toolcap-child.ts', import.meta.url));
});
afterAll(() => toolcapChild.remove());
const SECRET = 'whsec-e2e-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'toolcap-xena-hooks-'));
cpSync('examples/manifests', join(dir, 'manifests'), { recursive: true });
cpSync('examples/xena', join(dir, 'xena'), { recursive: true });
const config = join(dir, 'xena', 'toolcap.config.yaml');

let server: ChildProcess | undefined;
afterAll(async () => {
  // waited for: its folder goes next
  await stopChild(server);
  rmSync(dir, { recursive: true, force: true });
});

function serve(configPath: string): { url: Promise<string>; exit: Promise<{ code: number | null; err: string }> } {
  server = spawn(process.execPath, [toolcapChild.file, 'serve', '--config', configPath, '--port', '0'], { env: { ...process.env, MANUS_WEBHOOK_SECRET: SECRET }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  server.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exit = new Promise<{ code: number | null; err: string }>((resolve) => server!.on('close', (code) => resolve({ code, err })));
  const url = new Promise<string>((resolve, reject) => {
    server!.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /at (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exit.then(({ code }) => reject(new Error(`serve exited ${code}: ${out}${err}`)));
  });
  url.catch(() => undefined); // a test that expects the exit does not wait for a URL
  return { url, exit };
}

function signed(url: string, workflowType: string, event: object): Promise<Response> {
  const body = JSON.stringify(event);
  const ts = Math.floor(Date.now() / 1000);
  const signature = `sha256=${createHmac('sha256', SECRET).update(`${ts}.${body}`).digest('hex')}`;
  return fetch(`${url}/hooks/tool.manus.webhook.signal?workflowType=${workflowType}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-toolcap-timestamp': String(ts), 'x-toolcap-signature': signature }, body,
  });
}

describe('examples/xena webhooks through toolcap serve', () => {
  it('starts once, signals in order, ignores a replay; workers read and acknowledge', async () => {
    const url = await serve(config).url;
    const answers = [];
    for (const id of ['e1', 'e2', 'e1', 'e3']) answers.push((await (await signed(url, 'agentmail', { event_id: id, workflowId: 'mail-42' })).json()) as Record<string, unknown>);
    expect(answers.map((a) => [a.started, a.duplicate, a.seq])).toEqual([[true, false, 1], [false, false, 2], [false, true, 1], [false, false, 3]]);
    // local mode: the local principal is an admin, so it may work the inbox
    const signals = (await (await fetch(`${url}/workflows/mail-42/signals`)).json()) as { signals: Array<{ seq: number; idempotencyKey: string }> };
    expect(signals.signals.map((s) => s.idempotencyKey)).toEqual(['event:e1', 'event:e2', 'event:e3']);
    expect((await fetch(`${url}/workflows/mail-42/signals/1/ack`, { method: 'POST' })).status).toBe(200);
    const left = (await (await fetch(`${url}/workflows/mail-42/signals`)).json()) as { signals: Array<{ seq: number }> };
    expect(left.signals.map((s) => s.seq)).toEqual([2, 3]);
    const missing = await signed(url, 'research', { event_id: 'r1', workflowId: 'research-7' });
    expect([missing.status, ((await missing.json()) as { workflowId: string }).workflowId]).toEqual([409, 'research-7']);
    server!.kill('SIGTERM');
  }, 60_000);

  it('refuses to serve when the configured NATS cannot be reached, saying so', async () => {
    const bad = join(dir, 'xena', 'nats-down.yaml');
    writeFileSync(bad, readFileSync(config, 'utf8').replace('dispatcher: { kind: inbox }', 'dispatcher: { kind: jetstream, servers: [127.0.0.1:1] }'));
    const { code, err } = await serve(bad).exit;
    expect(code).toBe(2);
    expect(err).toMatch(/cannot open the webhook dispatcher \(jetstream\)/);
  }, 60_000);
});
