import { describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/model/schema.js';
import { createMcpProviderType, mcpProviderType, type McpConnector, type McpServerIdentity } from '../../../src/runtime/providers/mcp.js';
import { ProviderConfigError, ProviderError, type ProviderEnvironment } from '../../../src/runtime/providers/types.js';
import { contextFor, rejection, runProviderContract } from './contract.js';

const ENV: ProviderEnvironment = { env: {}, baseDir: '/' };
const TOOL: Tool = { name: 'browser_lookup' };

interface Call {
  server: string;
  tool: string;
  args: Record<string, unknown>;
}

/** A fake MCP client: tool "echo" echoes, "fail" throws, "hang" waits for the signal; server "down" is not ready. */
function fakeConnector(calls: Call[] = []): McpConnector {
  return {
    async callTool(server, tool, args, signal) {
      calls.push({ server, tool, args });
      if (tool === 'fail') throw new Error('tool reported isError');
      if (tool === 'typed') throw new ProviderError('BAD_RESPONSE', 'malformed JSON-RPC', false, { status: -32700 });
      if (tool === 'hang') {
        return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
      }
      return args;
    },
    ready(server) {
      return server === 'down' ? { healthy: false, reason: `server "${server}" is disconnected` } : { healthy: true };
    },
  };
}

const withConnector = createMcpProviderType(fakeConnector());
const make = (config: Record<string, unknown>, type = withConnector, tool: Tool = TOOL) => type.create({ name: 'mcp', config }, tool, ENV);

runProviderContract('mcp', () => ({
  type: 'mcp',
  succeed: make({ server: 'browser-server', tool: 'echo' }),
  fail: make({ server: 'browser-server', tool: 'fail' }),
  hang: make({ server: 'browser-server', tool: 'hang' }),
  unavailable: make({ server: 'browser-server', tool: 'echo' }, mcpProviderType),
}));

describe('mcp provider', () => {
  it('without a connector: not ready, with the reason naming the server', () => {
    expect(make({ server: 'browser-server', tool: 'browser.find' }, createMcpProviderType()).ready?.()).toEqual({
      healthy: false,
      reason: 'no MCP client is configured for server "browser-server" (MCP support arrives with the MCP gateway)',
    });
  });

  it('calls the connector with server, tool and arguments', async () => {
    const calls: Call[] = [];
    const p = make({ server: 'browser-server', tool: 'browser.find' }, createMcpProviderType(fakeConnector(calls)));
    await expect(p.call({ q: 'x' }, contextFor())).resolves.toEqual({ q: 'x' });
    expect(calls).toEqual([{ server: 'browser-server', tool: 'browser.find', args: { q: 'x' } }]);
  });

  it.each([
    ['the tool id when it has one', { name: 'browser_lookup', id: 'browserLookup' } as Tool, 'browserLookup'],
    ['the tool name otherwise', { name: 'browser_lookup' } as Tool, 'browser_lookup'],
  ])('config.tool defaults to %s', async (_label, tool, expected) => {
    const calls: Call[] = [];
    const p = make({ server: 's' }, createMcpProviderType(fakeConnector(calls)), tool);
    await p.call({}, contextFor(undefined, tool));
    expect(calls[0]?.tool).toBe(expected);
  });

  it('the connector decides readiness', () => {
    expect(make({ server: 'down' }).ready?.()).toEqual({ healthy: false, reason: 'server "down" is disconnected' });
    expect(make({ server: 'up' }).ready?.()).toEqual({ healthy: true });
  });

  it("a connector's ProviderError passes through unchanged", async () => {
    const err = await rejection(make({ server: 's', tool: 'typed' }).call({}, contextFor()));
    expect(err.code).toBe('BAD_RESPONSE');
    expect(err.status).toBe(-32700);
  });

  it.each([
    ['no server', {}],
    ['an empty server', { server: '' }],
    ['a non-string tool', { server: 's', tool: 3 }],
  ])('create() throws ProviderConfigError for %s', (_label, config) => {
    expect(() => make(config)).toThrow(ProviderConfigError);
  });
});

describe('mcp provider: code identity', () => {
  const schema = { type: 'object', properties: { q: { type: 'string' } } };
  const server: McpServerIdentity = { command: 'npx', args: ['-y', 'browser-server@1.2.0'], name: 'browser-server', version: '1.2.0', inputSchema: schema };
  const identityOf = (known: McpServerIdentity | undefined, tool: Tool = { ...TOOL, inputSchema: schema }, config: Record<string, unknown> = { server: 's', tool: 'find' }) =>
    make(config, createMcpProviderType({ ...fakeConnector(), identity: () => known }), tool).codeIdentity?.() as Promise<string>;

  it('is stable for the same server, tool and schema', async () => {
    const a = await identityOf(server);
    expect(a).toMatch(/^mcp:sha256:[0-9a-f]{64}$/);
    expect(await identityOf({ ...server })).toBe(a);
  });

  it.each([
    ["the server's command", { ...server, command: 'uvx' }],
    ["the server's args (another package version)", { ...server, args: ['-y', 'browser-server@1.3.0'] }],
    ['the URL of an HTTP server', { url: 'https://mcp.example.com/mcp' }],
    ["the server's reported version", { ...server, version: '1.3.0' }],
    ["the tool's listed schema", { ...server, inputSchema: { ...schema, required: ['q'] } }],
  ])('changes with %s', async (_label, changed) => {
    expect(await identityOf(changed)).not.toBe(await identityOf(server));
  });

  it("changes with the manifest's schema and the tool name", async () => {
    const a = await identityOf(server);
    expect(await identityOf(server, { ...TOOL, inputSchema: { type: 'object' } })).not.toBe(a);
    expect(await identityOf(server, { ...TOOL, inputSchema: schema }, { server: 's', tool: 'other' })).not.toBe(a);
  });

  it('works without a connector identity (server name, tool and manifest schema)', async () => {
    const plain = make({ server: 's', tool: 'find' }, withConnector, { ...TOOL, inputSchema: schema });
    await expect(plain.codeIdentity?.()).resolves.toMatch(/^mcp:sha256:/);
    await expect(make({ server: 's', tool: 'find' }, mcpProviderType).codeIdentity?.()).resolves.toMatch(/^mcp:sha256:/);
  });
});
