/**
 * A text cut to a limit before it is redacted keeps part of a secret that
 * straddles the cut: the known-value redaction needs the whole value, the
 * token shapes their minimum length. An upstream that echoes what it was
 * sent (a caller can pad its own argument so that the secret lands on the
 * cut) then hands the caller, the audit row and the span all but the last
 * characters of the secret. Every cut of an untrusted text must come after
 * redaction.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callErrorWire } from '../../src/runtime/errors.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { callError, closeAll, fakeTool, harness, manifest } from './helpers.js';

/** Matches no token shape: only the known-value redaction finds it. */
const PASS = 'correct-horse-battery-9931';
const ENV = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', TOOLCAP_TEST_PASS: PASS };

let server: Server;
let base: string;
beforeAll(async () => {
  // echoes the padding it is sent, then the credential, like a debugging upstream
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const pad = (JSON.parse(body) as { pad: string }).pad;
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(`${pad}${PASS} was refused`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
afterEach(closeAll);

describe('a secret on the cut of a long failure text', () => {
  it('an http provider\'s 400 body: no prefix of the secret reaches the error, its wire body or the audit', async () => {
    const tool = fakeTool('http.echo', {
      effects: { mode: 'write', sideEffects: 'write', risk: 'medium', reversible: 'none' },
      auth: { envs: { TOOLCAP_TEST_PASS: { required: true } } },
      inputSchema: { type: 'object', properties: { pad: { type: 'string' } } },
      execution: { timeoutSec: 10, retryClass: 'never', allowParallel: true },
      providers: [{ name: 'api', priority: 0, config: { type: 'http', baseUrl: base, path: '/echo', method: 'POST' } }],
    });
    const h = await harness(manifest([tool]), { providers: new ProviderTypes(), environment: { env: ENV, egress: { allow: ['127.0.0.1'] } } });
    // the secret's last character falls just past the 2,048 kept
    const e = await callError(h.runtime.call('http.echo', { pad: 'x'.repeat(2048 - PASS.length + 1) }));
    expect(e.code, e.message).toBe('TOOL_REJECTED');
    await h.flush();
    const texts = [JSON.stringify({ message: e.message, extra: e.extra }), JSON.stringify(callErrorWire(e)), JSON.stringify(await h.sqlite.listAudit({ limit: 100 }))];
    const prefix = PASS.slice(0, 12);
    console.log(texts.map((t) => t.replace(/x{20,}/g, 'X*')).join('\n'));
    for (const text of texts) expect(text).not.toContain(prefix);
  });

  it.skipIf(process.platform === 'win32')('a command\'s last stderr line: no prefix of the secret reaches the error or the audit', async () => {
    const tool = (command: string) =>
      fakeTool('cmd.echo', {
        effects: { mode: 'write', sideEffects: 'write', risk: 'medium', reversible: 'none' },
        auth: { envs: { TOOLCAP_TEST_PASS: { required: true } } },
        inputSchema: { type: 'object', properties: { pad: { type: 'string' } } },
        execution: { timeoutSec: 10, retryClass: 'never', allowParallel: true },
        providers: [{ name: 'cmd', priority: 0, config: { type: 'command', command } }],
      });
    const h = await harness(manifest([]), { providers: new ProviderTypes(), environment: { env: ENV } });
    // prints the request it read (the caller's padding) and the credential on stderr, then fails
    writeFileSync(join(h.dir, 'manifests', 'echo.sh'), '#!/bin/sh\nread line\necho "$line $TOOLCAP_TEST_PASS" >&2\nexit 3\n');
    chmodSync(join(h.dir, 'manifests', 'echo.sh'), 0o755);
    await h.rewrite(manifest([tool('./echo.sh')]));
    // '{"pad":"' + pad + '"} ' then the secret: its last character falls just past the 300 kept
    const e = await callError(h.runtime.call('cmd.echo', { pad: 'x'.repeat(300 - 11 - PASS.length + 1) }));
    expect(e.code, e.message).toBe('PROVIDER_ERROR');
    await h.flush();
    const texts = [JSON.stringify({ message: e.message, extra: e.extra }), JSON.stringify(callErrorWire(e)), JSON.stringify(await h.sqlite.listAudit({ limit: 100 }))];
    for (const text of texts) expect(text).not.toContain(PASS.slice(0, 12));
  });
});
