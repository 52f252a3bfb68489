/**
 * The gateway in search mode (`tools: 'search'`) with the SDK client over
 * the in-memory transport, on the GitHub MCP server's 114 real tool
 * definitions and the runtime examples: tools/list shows only the
 * meta-tools; a search answers the ranking API's matches for the caller's
 * view with their decision metadata and the inputSchema tools/list gives;
 * found tools join the list (bounded) after list_changed; a persona's tools
 * are neither found nor listed without it; malformed input is refused.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, ToolListChangedNotificationSchema, type CallToolResult, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { APPROVAL_STATUS_TOOL } from '../../src/mcp/approval-status.js';
import { CALL_TOOL, FoundTools, MAX_FOUND_TOOLS, MAX_QUERY_CHARS, SEARCH_TOOL } from '../../src/mcp/search-mode.js';
import { createGatewayServer, type GatewayOptions } from '../../src/mcp/server.js';
import { searchAnswer, searchTools } from '../../src/query/views.js';
import { closeAll, connect, copyExamples, errorMeta, examplesEnv, listAll, OPS_TOOL, openEnv, rejection, textOf, within, writeManifest, type Env } from './gateway-helpers.js';
import { ALICE, LOCAL } from './principals.js';

afterEach(closeAll);

const GITHUB = '../shared/corpus/mcp-github-server/tools.json';
const gateway = (env: Env, options: Partial<GatewayOptions> = {}) => createGatewayServer({ registry: env.registry, runtime: env.runtime, tools: 'search', ...options });
const matchesOf = (r: unknown) => ((r as CallToolResult).structuredContent as { matches: Array<Record<string, unknown> & { name: string }> }).matches;
const search = (client: Client, args: Record<string, unknown>) => client.callTool({ name: SEARCH_TOOL, arguments: args });

/** A shared write tool that declares cost and latency and names a safer alternative only the ops persona may call. */
const STOP_TOOL = {
  name: 'service.stop',
  version: '1.0.0',
  description: 'Stop a running service.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  effects: { mode: 'write', sideEffects: 'system', risk: 'medium', reversible: 'partial' },
  cost: { lane: 'high', estimatedDollars: 0.5 },
  latency: { p50Ms: 800, p95Ms: 4000 },
  alternatives: ['ops.restart', 'text.word_count'],
  providers: [{ name: 'local', priority: 0, config: { type: 'module', module: './providers/text.mjs', export: 'reverse' } }],
};

async function examplesWithStop(): Promise<Env> {
  const { manifests } = copyExamples();
  writeManifest(join(manifests, 'ops.yaml'), [OPS_TOOL]);
  writeManifest(join(manifests, 'stop.yaml'), [STOP_TOOL]);
  return openEnv([manifests]);
}

describe('tools/list in search mode', () => {
  it('lists only the search and call tools, plus the approval status tool with a principal; full mode is unchanged', async () => {
    const { env } = await examplesEnv();
    const plain = await connect(gateway(env));
    expect((await plain.listTools()).tools.map((t) => t.name)).toEqual([SEARCH_TOOL, CALL_TOOL]);
    const withPrincipal = await connect(gateway(env, { principal: LOCAL }));
    expect((await withPrincipal.listTools()).tools.map((t) => t.name)).toEqual([SEARCH_TOOL, CALL_TOOL, APPROVAL_STATUS_TOOL]);
    const full = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime }));
    expect((await full.listTools()).tools.map((t) => t.name)).toEqual(['notes.append', 'text.reverse', 'text.word_count', 'toolcap.catalog_summary']);
    expect(plain.getInstructions()).toContain(SEARCH_TOOL);
    // one page: a cursor is not ours
    expect((await rejection(plain.listTools({ cursor: 'eyJhZnRlciI6ImEifQ' }))).code).toBe(ErrorCode.InvalidParams);
  });
});

describe('toolcap_search_tools on the GitHub MCP server (114 tools)', () => {
  it('answers the ranking API\'s matches with their decision metadata and the inputSchema tools/list gives', async () => {
    const env = await openEnv([GITHUB]);
    const full = await listAll(await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime })));
    expect(full.tools).toHaveLength(114);
    const listed = new Map(full.tools.map((t) => [t.name, t]));
    const client = await connect(gateway(env));

    const query = 'create a new issue in a repository';
    const r = await search(client, { query, limit: 5 });
    expect(r.isError).toBeFalsy();
    const matches = matchesOf(r);
    // the ranking /search gives, in the same order (this catalog has no personas: the caller sees every tool)
    const expected = searchAnswer(searchTools(env.registry.snapshot(), { query, limit: 5 }), true);
    expect(matches.map((m) => m.name)).toEqual(expected.candidates.map((c) => c.name));
    expect((r.structuredContent as Record<string, unknown>)['intent']).toBe(expected.intent);
    expect(matches.map((m) => m.name)).toContain('create_issue');
    expect(matches.map((m) => m['rank'])).toEqual([1, 2, 3, 4, 5]);
    for (const m of matches) {
      const tool = listed.get(m.name) as McpTool;
      expect(m['inputSchema'], m.name).toEqual(tool.inputSchema);
      expect(m['description'], m.name).toBe(tool.description);
      const meta = tool._meta?.['toolcap.dev/capability'] as Record<string, unknown>;
      expect(m, m.name).toMatchObject({ mode: meta['mode'], risk: meta['risk'], approvalRequired: meta['approvalRequired'], health: 'unknown' });
      expect(m['fit']).toBeGreaterThan(0);
      expect(m['fit']).toBeLessThanOrEqual(1);
      expect(Array.isArray(m['penalties'])).toBe(true);
      for (const p of m['penalties'] as unknown[]) expect(p).toMatchObject({ code: expect.any(String), points: expect.any(Number), reason: expect.any(String) });
      expect(textOf(r)).toContain(`${String(m['rank'])}. ${m.name}`);
    }
    const scores = matches.map((m) => m['score'] as number);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(textOf(r)).toContain(CALL_TOOL);

    // an explicit intent is used, and read tasks get reads first
    const reads = matchesOf(await search(client, { query: 'which pull requests are open', intent: 'read', limit: 3 }));
    expect(reads[0]?.['mode']).toBe('read');
  });

  it('sends list_changed after a search; the next tools/list holds the found tools, at most the last 20', async () => {
    const env = await openEnv([GITHUB]);
    let refreshed: (tools: McpTool[]) => void = () => undefined;
    const client = await connect(gateway(env), {
      listChanged: { tools: { debounceMs: 0, onChanged: (error, tools) => (error ? undefined : refreshed(tools ?? [])) } },
    });
    const next = () => new Promise<McpTool[]>((resolve) => (refreshed = resolve));

    let changed = next();
    const first = matchesOf(await search(client, { query: 'create a new issue in a repository', limit: 5 })).map((m) => m.name);
    const tools = await within(changed, 5000, 'list_changed after a search');
    expect(tools.map((t) => t.name)).toEqual([SEARCH_TOOL, CALL_TOOL, ...[...first].sort()]);
    // a found tool is listed as full mode lists it
    expect(tools.find((t) => t.name === 'create_issue')?.inputSchema).toMatchObject({ required: ['owner', 'repo', 'title'] });

    let last: string[] = [];
    for (const query of ['list workflow runs and jobs', 'read files from the repository', 'manage notifications and labels']) {
      changed = next();
      last = matchesOf(await search(client, { query, limit: 20 })).map((m) => m.name);
      await within(changed, 5000, 'list_changed after another search');
    }
    const { tools: now } = await client.listTools();
    const names = now.map((t) => t.name);
    expect(names.slice(0, 2)).toEqual([SEARCH_TOOL, CALL_TOOL]);
    expect(names.length - 2).toBe(MAX_FOUND_TOOLS);
    for (const name of last) expect(names).toContain(name);
  });

  it('sends list_changed only when the found set changed', async () => {
    const env = await openEnv([GITHUB]);
    const client = await connect(gateway(env));
    let notices = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void notices++);
    await search(client, { query: 'delete a file', limit: 3 });
    await client.listTools(); // a round trip: the notice, sent before the answer, has arrived
    expect(notices).toBe(1);
    await search(client, { query: 'delete a file', limit: 3 });
    await client.listTools();
    expect(notices).toBe(1);
    const none = await search(client, { query: 'zzqx vvwy', limit: 3 });
    expect(matchesOf(none)).toEqual([]);
    expect(textOf(none)).toContain('No tool you may call matches');
    await client.listTools();
    expect(notices).toBe(1);
  });
});

describe('FoundTools', () => {
  it('keeps the last 20 found, the best of a search newest; finding one again makes it newest; says when the set changed', () => {
    const found = new FoundTools();
    const names = Array.from({ length: 25 }, (_, i) => `tool_${String(i).padStart(2, '0')}`);
    expect(found.add(names.slice(0, 10))).toBe(true);
    expect(found.add(names.slice(0, 10))).toBe(false);
    expect(found.add(names.slice(10))).toBe(true);
    expect(found.names()).toHaveLength(MAX_FOUND_TOOLS);
    // the oldest search's last-ranked went first; its best five stay
    expect(found.names()).toEqual([...names.slice(0, 5).reverse(), ...names.slice(10).reverse()]);
    found.add(['tool_04']);
    expect(found.names().at(-1)).toBe('tool_04');
    expect(found.add(['tool_99'])).toBe(true);
    expect(found.names()).not.toContain('tool_03');
  });
});

describe('what a session may find', () => {
  it('a persona\'s tools are neither found, listed nor named as alternatives without it; with it they are', async () => {
    const env = await examplesWithStop();
    const shared = await connect(gateway(env));
    const sharedMatches = matchesOf(await search(shared, { query: 'restart or stop a service', limit: 20 }));
    expect(sharedMatches.map((m) => m.name)).not.toContain('ops.restart');
    const stop = sharedMatches.find((m) => m.name === 'service.stop');
    // cost and latency as declared; the ops-only alternative is not named
    expect(stop).toMatchObject({ mode: 'write', cost: { lane: 'high', estimatedDollars: 0.5 }, latency: { p50Ms: 800, p95Ms: 4000 }, alternatives: ['text.word_count'] });
    expect((await shared.listTools()).tools.map((t) => t.name)).not.toContain('ops.restart');

    const ops = await connect(gateway(env, { principal: ALICE, persona: 'ops' }));
    const opsMatches = matchesOf(await search(ops, { query: 'restart or stop a service', limit: 20 }));
    expect(opsMatches.map((m) => m.name)).toContain('ops.restart');
    expect(opsMatches.find((m) => m.name === 'service.stop')?.['alternatives']).toEqual(['ops.restart', 'text.word_count']);
    expect((await ops.listTools()).tools.map((t) => t.name)).toContain('ops.restart');
  });
});

describe('malformed input', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['no query', {}, '/query'],
    ['an empty query', { query: '   ' }, '/query'],
    ['a query that is not a string', { query: ['issue'] }, '/query'],
    ['a query over the cap', { query: 'x'.repeat(MAX_QUERY_CHARS + 1) }, '/query'],
    ['limit 0', { query: 'issue', limit: 0 }, '/limit'],
    ['limit 21', { query: 'issue', limit: 21 }, '/limit'],
    ['a fractional limit', { query: 'issue', limit: 2.5 }, '/limit'],
    ['a limit as text', { query: 'issue', limit: '5' }, '/limit'],
    ['an unknown intent', { query: 'issue', intent: 'delete' }, '/intent'],
    ['an unknown field', { query: 'issue', persona: 'ops' }, ''],
  ])('search: %s is a tool error INVALID_ARGUMENTS', async (_what, args, pointer) => {
    const { env } = await examplesEnv();
    const client = await connect(gateway(env));
    const r = await search(client, args);
    expect(r.isError).toBe(true);
    expect(errorMeta(r)).toMatchObject({ code: 'INVALID_ARGUMENTS', pointer });
    // nothing was found, so nothing joined the list
    expect((await client.listTools()).tools).toHaveLength(2);
  });

  // a task writing the entity reader's own mark of no entity ("zqeaqz") threw in the reader: an internal error
  it.each(['zqeaqz', 'close #1 zqebqz zqidzq'])('search: %j is answered, not an error', async (query) => {
    const { env } = await examplesEnv();
    const client = await connect(gateway(env));
    const r = await search(client, { query });
    expect(r.isError ?? false, textOf(r)).toBe(false);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no name', {}, '/name'],
    ['a name that is not a string', { name: 5 }, '/name'],
    ['arguments that are not an object', { name: 'text.reverse', arguments: ['hi'] }, '/arguments'],
    ['a meta-tool', { name: SEARCH_TOOL, arguments: { query: 'x' } }, '/name'],
    ['an unknown field', { name: 'text.reverse', args: {} }, ''],
  ])('call_tool: %s is a tool error INVALID_ARGUMENTS', async (_what, args, pointer) => {
    const { env } = await examplesEnv();
    const client = await connect(gateway(env));
    const r = await client.callTool({ name: CALL_TOOL, arguments: args });
    expect(r.isError).toBe(true);
    expect(errorMeta(r)).toMatchObject({ code: 'INVALID_ARGUMENTS', pointer });
  });
});
