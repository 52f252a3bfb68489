/**
 * `mcp.names: openai-safe`: the gateway lists names OpenAI and Anthropic
 * accept (`text_reverse` for `text.reverse`), with the real name in
 * `_meta["toolcap.dev/name"]`, and a call under the safe name reaches the
 * real tool. Checked with the MCP SDK client over an in-memory transport.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { NAME_META_KEY } from '../../src/mcp/gateway-names.js';
import { createGatewayServer } from '../../src/mcp/server.js';
import { configLoader } from '../config/helpers.js';
import { join } from 'node:path';
import type { Principal } from '../../src/runtime/identity/principal.js';
import { closeAll, connect, copyExamples, errorMeta, examplesEnv, openEnv, rejection, textOf, writeManifest } from './gateway-helpers.js';
import { ALICE } from './principals.js';

afterAll(closeAll);

const OPENAI_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

describe('the gateway names tools as configured', () => {
  it.each([
    ['canonical', 'text.reverse'],
    ['openai-safe', 'text_reverse'],
  ] as const)('%s: tools/list names text.reverse "%s", and a call under that name runs it', async (names, listed) => {
    const { env } = await examplesEnv();
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime, names }));
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === listed);
    expect(tool, JSON.stringify(tools.map((t) => t.name))).toBeDefined();
    if (names === 'openai-safe') {
      for (const t of tools) expect(t.name).toMatch(OPENAI_NAME);
      expect(tool!._meta?.[NAME_META_KEY]).toBe('text.reverse');
    } else {
      expect(tools.some((t) => t.name.includes('.'))).toBe(true);
      expect(tool!._meta?.[NAME_META_KEY]).toBeUndefined();
    }
    const result = await client.callTool({ name: listed, arguments: { text: 'abc' } });
    expect(result.isError ?? false).toBe(false);
    expect(textOf(result)).toContain('cba');
  });

  it('openai-safe: the real name is still callable, and an unknown safe name is an unknown tool', async () => {
    const { env } = await examplesEnv();
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime, names: 'openai-safe' }));
    expect(textOf(await client.callTool({ name: 'text.reverse', arguments: { text: 'xy' } }))).toContain('yx');
    await expect(client.callTool({ name: 'text_nothing', arguments: {} })).rejects.toThrow(/text_nothing/);
  });

  it('openai-safe in search mode: toolcap_call_tool takes the safe name', async () => {
    const { env } = await examplesEnv();
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime, names: 'openai-safe', tools: 'search' }));
    const result = await client.callTool({ name: 'toolcap_call_tool', arguments: { name: 'text_reverse', arguments: { text: 'abc' } } });
    expect(result.isError ?? false).toBe(false);
    expect(textOf(result)).toContain('cba');
  });
});

describe('a safe name never names a tool the session may not call', () => {
  // the safe names are made over every tool of the snapshot: `ops_restart` mapped to the ops-only `ops.restart` for
  // a caller without ops too, and the refusal said `No tool named "ops.restart"` (data.tool the same), where a name
  // that maps to nothing says the name sent: guessing safe names told which hidden tools exist, and their real names
  const NO_PERSONA: Principal = { id: 'dave', roles: ['caller'], personas: [], via: 'api-key' };
  it.each(['full', 'search'] as const)('%s mode: a hidden tool\'s safe name is refused as the name sent, as an unknown one is', async (mode) => {
    const { env } = await examplesEnv();
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime, names: 'openai-safe', tools: mode, principal: NO_PERSONA }));
    const refused = async (name: string) => {
      const direct = await rejection(client.callTool({ name, arguments: { text: 'x' } }));
      const answers = [direct.message, JSON.stringify(direct.data)];
      if (mode === 'search') {
        const meta = await client.callTool({ name: 'toolcap_call_tool', arguments: { name, arguments: { text: 'x' } } });
        answers.push(textOf(meta), JSON.stringify(errorMeta(meta)));
      }
      return answers.join('\n');
    };
    const hidden = await refused('ops_restart');
    expect(hidden).not.toContain('ops.restart');
    // the same answer as a name no tool has, but for the name itself
    expect(hidden).toBe((await refused('ops_nothing')).replaceAll('ops_nothing', 'ops_restart'));
    // with the persona, the safe name reaches the tool
    const ops = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime, names: 'openai-safe', tools: mode, principal: ALICE, persona: 'ops' }));
    expect(textOf(await ops.callTool({ name: 'ops_restart', arguments: { text: 'abc' } }))).toContain('cba');
  });
});

describe("the gateway's own tools keep their names", () => {
  // a catalog tool `toolcap.call.tool` was mapped to the safe name `toolcap_call_tool`, and a call under that name
  // reached it instead of the meta-tool (the same for the search and approval status tools), and both were listed
  it.each(['search', 'full'] as const)('openai-safe, %s mode: a dotted catalog tool never takes a gateway tool\'s name', async (mode) => {
    const { manifests } = copyExamples();
    const decoy = (name: string) => ({ name, version: '1.0.0', description: 'A decoy.', inputSchema: { type: 'object' }, effects: { mode: 'read', sideEffects: 'none' }, providers: [{ name: 'local', priority: 0, config: { type: 'module', module: './providers/text.mjs', export: 'reverse' } }] });
    writeManifest(join(manifests, 'decoys.yaml'), [decoy('toolcap.call.tool'), decoy('toolcap.search.tools'), decoy('toolcap.approval.status')]);
    const env = await openEnv([manifests]);
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime, names: 'openai-safe', tools: mode, principal: ALICE }));
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(new Set(names).size, JSON.stringify(names)).toBe(names.length);
    const own = mode === 'search' ? ['toolcap_search_tools', 'toolcap_call_tool', 'toolcap_approval_status'] : ['toolcap_approval_status'];
    for (const name of own) expect(tools.find((t) => t.name === name)?._meta?.[NAME_META_KEY]).toBeUndefined();
    const status = await client.callTool({ name: 'toolcap_approval_status', arguments: { approvalId: 'apr_none' } });
    expect(textOf(status)).toMatch(/APPROVAL_NOT_FOUND/);
    if (mode === 'search') {
      const called = await client.callTool({ name: 'toolcap_call_tool', arguments: { name: 'text_reverse', arguments: { text: 'abc' } } });
      expect(textOf(called)).toContain('cba');
      const found = await client.callTool({ name: 'toolcap_search_tools', arguments: { query: 'reverse text' } });
      expect(found.structuredContent).toHaveProperty('matches');
    }
  });
});

describe('mcp.names in the config', () => {
  const load = configLoader('toolcap-mcp-names-');
  it.each([
    ['names: openai-safe', 'openai-safe', false],
    ['names: canonical', 'canonical', false],
    ['names: dotted', undefined, true],
  ])('mcp: { %s }', (line, names, error) => {
    const result = load(`mcp:\n  ${line}\n`);
    expect(result.config?.mcp.names).toBe(names);
    expect(result.diagnostics.some((d) => d.severity === 'error' && d.pointer === '/mcp/names')).toBe(error);
  });
});
