/**
 * An upstream MCP server's failure text is cut to MAX_FAILURE_TEXT
 * characters; the cut came before any redaction, so a credential of the
 * server's own config (an env value, a header) that an echoing server put
 * on the cut kept all but its last characters: the known-value redaction
 * needs the whole value, the token shapes their minimum length. A caller
 * pads its arguments to place it there and reads the rest in the error, the
 * audit row and the span. The server's own secrets and the token shapes are
 * redacted before the cut.
 */
import { describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { MAX_FAILURE_TEXT } from '../../src/mcp/call-outcome.js';
import type { ClientsContext, ServerEntry } from '../../src/mcp/server-entry.js';
import { callServerTool } from '../../src/mcp/tool-call.js';
import { queueDiscovery } from '../../src/mcp/discovery-refresh.js';
import { ProviderError } from '../../src/runtime/providers/types.js';
import { mcpConfig, serverConfig } from './helpers.js';

/** Matches no token shape: only the known-value redaction finds it. */
const PASS = 'correct-horse-battery-9931';
const TOKEN = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';

/** An entry whose stand-in client answers every call with `answer` (or throws it). */
function entry(answer: (pad: string) => unknown, throws = false): { ctx: ClientsContext; e: ServerEntry } {
  const config = serverConfig('echo', { command: 'echo-server', env: { ECHO_PASS: PASS }, headers: { authorization: `token ${TOKEN}` } });
  const client = {
    callTool: async (params: { arguments: { pad: string } }) => {
      const value = answer(params.arguments.pad);
      if (throws) throw value;
      return value;
    },
  } as unknown as Client;
  const e: ServerEntry = { config, state: 'up', client, stderr: '', failures: 0, tools: [], discovery: Promise.resolve() };
  const ctx = { config: mcpConfig([config]), options: {}, clock: Date.now, reconnect: {}, closed: false } as unknown as ClientsContext;
  return { ctx, e };
}

async function failure(ctx: ClientsContext, e: ServerEntry, pad: string): Promise<ProviderError> {
  const error = await callServerTool(ctx, e, 'echo', 'echo', { pad }, new AbortController().signal).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe('a secret on the cut of an MCP server\'s failure text', () => {
  // the secret's last character falls just past the characters kept
  const padFor = (secret: string, before = 0) => 'x'.repeat(MAX_FAILURE_TEXT - before - secret.length);

  it.each([
    ['an env value', PASS],
    ['a token in a header', TOKEN],
  ])('an isError result echoing %s keeps no prefix of it', async (_label, secret) => {
    const { ctx, e } = entry((pad) => ({ isError: true, content: [{ type: 'text', text: `${pad} ${secret} refused` }] }));
    const error = await failure(ctx, e, padFor(secret));
    expect(error.message).not.toContain(secret.slice(0, 12));
  });

  it('a JSON-RPC error echoing the env value keeps no prefix of it', async () => {
    const { ctx, e } = entry((pad) => new McpError(-32603, `${pad} ${PASS} refused`), true);
    // McpError prefixes 'MCP error -32603: '
    const error = await failure(ctx, e, padFor(PASS, 'MCP error -32603: '.length));
    expect(error.message).not.toContain(PASS.slice(0, 12));
  });
});

describe('what a server says when its tools/list fails', () => {
  it('is redacted, then cut, before the warning and lastError keep it (an HTTP error body may be megabytes)', async () => {
    const { ctx, e } = entry(() => undefined);
    const warned: string[] = [];
    (ctx as { options: { warn: (t: string) => void } }).options = { warn: (t) => warned.push(t) };
    e.client = { listTools: async () => { throw new Error(`${'x'.repeat(MAX_FAILURE_TEXT - 20)} ${PASS} ${'y'.repeat(5_000_000)}`); } } as unknown as Client;
    const outcome = await queueDiscovery(ctx, e);
    clearTimeout(e.refreshTimer);
    expect(outcome.ok).toBe(false);
    for (const text of [outcome.error!, e.lastError!, ...warned]) {
      expect(text.length).toBeLessThan(MAX_FAILURE_TEXT + 200);
      expect(text).not.toContain(PASS.slice(0, 12));
      expect(text).toContain('more characters');
    }
  });
});

describe('a call that fails with something other than a server answer', () => {
  // an SDK transport error (a fetch body, a parse error) repeats what the server sent: a plain Error, not an McpError
  it.each([
    ['a plain Error', (pad: string) => new Error(`${pad} ${PASS} ${'y'.repeat(1_000_000)}`), 'PROVIDER_ERROR'],
    ['a refused connection', (pad: string) => Object.assign(new Error(`${pad} ${PASS} ${'y'.repeat(1_000_000)}`), { code: 'ECONNREFUSED' }), 'PROVIDER_UNAVAILABLE'],
  ])('%s is redacted, then cut, in the error message', async (_label, make, code) => {
    const { ctx, e } = entry(make, true);
    const error = await failure(ctx, e, 'x'.repeat(MAX_FAILURE_TEXT - 40));
    expect(error.code).toBe(code);
    expect(error.message.length).toBeLessThan(MAX_FAILURE_TEXT + 200);
    expect(error.message).not.toContain(PASS.slice(0, 12));
    expect(error.message).toContain('more characters');
  });
});
