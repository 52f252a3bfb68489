/**
 * Agents over MCP (Streamable HTTP, a real socket, the official SDK client):
 * a session opened with `?agent=` lists and searches only the agent's view,
 * a call outside it is a JSON-RPC InvalidParams error AGENT_FORBIDDEN naming
 * the constraint, and an unknown agent is refused before a session opens.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { mcpHttpHandler, type McpHttpOptions } from '../../src/mcp/http.js';
import { APPROVAL_STATUS_TOOL } from '../../src/mcp/approval-status.js';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGatewayServer } from '../../src/mcp/server.js';
import { closeAll, connect as connectInMemory, openEnv, rejection, tempDir, track } from './gateway-helpers.js';

afterEach(closeAll);

const FIXTURE = 'test/fixtures/xena/agents';

/** The MCP endpoint over the agents fixture on a real socket. */
async function endpoint(options: Partial<McpHttpOptions> = {}): Promise<{ url: string; stop(): Promise<void> }> {
  const env = await openEnv([FIXTURE]);
  const handler = mcpHttpHandler({ registry: env.registry, runtime: env.runtime, ...options });
  const app = new Hono();
  app.all('/mcp', (c) => handler(c.req.raw));
  const server: HttpServer = createServer(getRequestListener(app.fetch));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function connect(url: string): Promise<Client> {
  const client = track(new Client({ name: 'agent-test', version: '1.0.0' }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const listed = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).filter((n) => n !== APPROVAL_STATUS_TOOL).sort();

describe('MCP ?agent=', () => {
  it.each([
    ['agent.low', ['notes.lookup', 'tool.tasks.source']],
    ['agent.deterministic', ['tool.deploy.prod', 'tool.tasks.source']],
    ['agent.skilled', ['tool.email.reply', 'tool.tasks.source']],
    ['agent.empty', []],
  ])('a session for %s lists %j', async (agent, tools) => {
    const h = await endpoint();
    try {
      expect(await listed(await connect(`${h.url}?agent=${agent}`))).toEqual(tools);
    } finally {
      await h.stop();
    }
  });

  it('a call outside the view is a JSON-RPC error naming the constraint; one inside runs', async () => {
    const h = await endpoint();
    try {
      const low = await connect(`${h.url}?agent=agent.low`);
      const refused = await rejection(low.callTool({ name: 'tool.deploy.prod', arguments: {} }));
      expect(refused.code).toBe(ErrorCode.InvalidParams);
      expect(refused.data).toMatchObject({ code: 'AGENT_FORBIDDEN', tool: 'tool.deploy.prod', agent: 'agent.low', constraint: 'maxRiskLevel' });
      const ran = await low.callTool({ name: 'notes.lookup', arguments: { key: 'k' } });
      expect(ran.isError).toBeFalsy();
      expect(ran.structuredContent).toEqual({ echoed: { key: 'k' } });

      const deterministic = await connect(`${h.url}?agent=agent.deterministic`);
      const silent = await rejection(deterministic.callTool({ name: 'notes.lookup', arguments: { key: 'k' } }));
      expect(silent.data).toMatchObject({ code: 'AGENT_FORBIDDEN', constraint: 'requireDeterministicTools' });
    } finally {
      await h.stop();
    }
  });

  it('search mode ranks and calls within the view', async () => {
    const h = await endpoint({ tools: 'search' });
    try {
      const low = await connect(`${h.url}?agent=agent.low`);
      const found = await low.callTool({ name: 'toolcap_search_tools', arguments: { query: 'deploy the service to production' } });
      const matches = (found.structuredContent as { matches: Array<{ name: string }> }).matches.map((m) => m.name);
      expect(matches).not.toContain('tool.deploy.prod');
      const viaMeta = await low.callTool({ name: 'toolcap_call_tool', arguments: { name: 'tool.deploy.prod', arguments: {} } });
      expect(viaMeta.isError).toBe(true);
      expect(JSON.stringify(viaMeta)).toContain('AGENT_FORBIDDEN');
    } finally {
      await h.stop();
    }
  });

  it.each([
    ['?agent=agent.nobody', 404, 'UNKNOWN_AGENT'],
    // bound to persona ops; the session acts as none
    ['?agent=agent.ops', 403, 'AGENT_FORBIDDEN'],
  ])('%s is refused before a session opens (%d %s)', async (query, status, code) => {
    const h = await endpoint();
    try {
      const res = await fetch(`${h.url}${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
      });
      expect(res.status).toBe(status);
      const body = (await res.json()) as { error: { data: { code: string } } };
      expect(body.error.data.code).toBe(code);
      await expect(connect(`${h.url}${query}`)).rejects.toThrow();
    } finally {
      await h.stop();
    }
  });

  it('a persona-bound agent serves with its persona', async () => {
    const h = await endpoint();
    try {
      expect(await listed(await connect(`${h.url}?agent=agent.ops&persona=ops`))).toEqual(['notes.lookup', 'ops.restart']);
    } finally {
      await h.stop();
    }
  });

  it('a reload that removes the agent leaves the session nothing: an empty list, calls UNKNOWN_AGENT', async () => {
    const dir = tempDir();
    cpSync(FIXTURE, dir, { recursive: true });
    const env = await openEnv([dir]);
    const gateway = createGatewayServer({ registry: env.registry, runtime: env.runtime, agent: 'agent.low' });
    const client = await connectInMemory(gateway);
    expect(await listed(client)).toEqual(['notes.lookup', 'tool.tasks.source']);
    const file = join(dir, 'config/registry/agents.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { agents: Array<{ id: string }> };
    writeFileSync(file, JSON.stringify({ agents: doc.agents.filter((a) => a.id !== 'agent.low') }, null, 2));
    expect((await env.registry.refresh()).kind).toBe('reloaded');
    expect(await listed(client)).toEqual([]);
    const refused = await rejection(client.callTool({ name: 'notes.lookup', arguments: { key: 'k' } }));
    expect(refused.data).toMatchObject({ code: 'UNKNOWN_AGENT' });
  });
});
