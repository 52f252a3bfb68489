/**
 * `toolcap serve` with MCP discovery, end to end and in-process: the config's
 * `mcp.servers` are started, their tools discovered into
 * `.toolcap/mcp/mcp.<server>.json`, served under `/tools` and called through
 * the runtime (approvals, audit, metrics) and through the `/mcp` gateway.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program.js';

const ROOT = process.cwd();
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const CHANGING = join(ROOT, 'test/fixtures/mcp-servers/changing.mjs');
const TEXT_PROVIDER = join(ROOT, 'examples/manifests/toolcap/providers/text.mjs');
const T = 60_000;

/** Poll until `check` gives something truthy; fails after `timeoutMs` (a bound, not a timing assertion). */
async function until<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number, what: string): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const folders: string[] = [];
const running: Array<{ stop(): void; done: Promise<number> }> = [];
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  for (const s of running.splice(0)) {
    s.stop();
    expect(await s.done).toBe(0);
  }
  for (const d of folders.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The manifest folder `m/`: text.reverse with a module provider. */
const TEXT_MANIFEST = `toolcap: 1
tools:
  - name: text.reverse
    version: 1.0.0
    description: Reverse a piece of text (runs a JS module export in-process).
    inputSchema:
      type: object
      properties:
        text: { type: string, description: The text to reverse. }
      required: [text]
      additionalProperties: false
    effects: { mode: read, sideEffects: compute, risk: low, reversible: full }
    approval: { required: false }
    execution: { timeoutSec: 5, retryClass: safe, allowParallel: true, idempotent: true }
    providers:
      - { name: local, priority: 0, config: { type: module, module: ./providers/text.mjs, export: reverse } }
`;

/** A temp folder with `toolcap.config.yaml` (`sources: [m/]` plus `mcp`) and `m/` holding text.reverse; returns the folder. */
function project(mcpYaml: string, extra: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-mcp-serve-'));
  folders.push(dir);
  mkdirSync(join(dir, 'm', 'providers'), { recursive: true });
  copyFileSync(TEXT_PROVIDER, join(dir, 'm', 'providers', 'text.mjs'));
  writeFileSync(join(dir, 'm', 'text.yaml'), TEXT_MANIFEST);
  for (const [file, text] of Object.entries(extra)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  // local mode, as npm start runs: one local principal who may use ops and dev, approving its own calls (stated, as a single-user setup must)
  writeFileSync(join(dir, 'toolcap.config.yaml'), `sources: [m/]\nauth:\n  local: { personas: [ops, dev] }\napprovals: { selfApproval: true }\n${mcpYaml}`);
  return dir;
}

/** YAML of a stdio server running `script` with this node. */
function nodeServer(script: string, args: string[] = []): string {
  return `      command: ${JSON.stringify(process.execPath)}\n      args: ${JSON.stringify([script, ...args])}\n`;
}

/** Run `toolcap serve` in-process; resolves the base URL once it prints it. */
function serve(dir: string, extra: string[] = ['--no-watch']) {
  const controller = new AbortController();
  let stdout = '';
  let stderr = '';
  const done = run(['serve', '--config', join(dir, 'toolcap.config.yaml'), '--port', '0', ...extra], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    signal: controller.signal,
  });
  const handle = { stop: () => controller.abort(), done };
  running.push(handle);
  let finished = false;
  void done.then(() => (finished = true));
  const url = until(
    () => {
      if (finished) throw new Error(`serve ended early: ${stderr}`);
      return /at (http:\/\/\S+)/.exec(stdout)?.[1];
    },
    45_000,
    'serve printing its URL',
  );
  return { url, done, stop: handle.stop, out: () => stdout, err: () => stderr };
}

async function getJson(url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url);
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function postJson(url: string, body: unknown): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers };
}

/** Every tool of `/tools` with the query, all pages. */
async function allTools(base: string, query = ''): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const params = new URLSearchParams(query);
    params.set('limit', '500');
    if (cursor !== undefined) params.set('cursor', cursor);
    const { status, body } = await getJson(`${base}/tools?${params}`);
    expect(status).toBe(200);
    out.push(...body.tools);
    cursor = body.nextCursor;
    if (cursor === undefined) return out;
  }
  throw new Error('too many pages');
}

/** The everything server's own tool names, read with a direct SDK client. */
async function everythingToolNames(): Promise<string[]> {
  const client = new Client({ name: 'serve-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'pipe' }));
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    names.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor);
  await client.close();
  return names;
}

/** Every tool name the gateway lists to a fresh session at `endpoint`. */
async function gatewayToolNames(endpoint: string): Promise<string[]> {
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    names.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor);
  await client.close();
  return names;
}

/** Processes whose working folder is `dir` (stdio servers run in the config's folder); Linux /proc only. */
function processesIn(dir: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) === dir) out.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

/** As discovery names them (computed here, not by the code under test). */
const sanitised = (name: string) => `mcp.everything.${name.toLowerCase().replace(/[^a-z0-9_.-]+/g, '_')}`;

const EVERYTHING_CONFIG = (more = '', serverMore = '') => `mcp:\n${more}  servers:\n    everything:\n${nodeServer(EVERYTHING, ['stdio'])}${serverMore}`;

describe('toolcap serve with MCP servers', () => {
  it(
    'discovers a stdio server: /tools?tag=mcp lists what tools/list says, with the conservative defaults and an mcp provider',
    async () => {
      const dir = project(EVERYTHING_CONFIG());
      const s = serve(dir);
      const url = await s.url;
      const expected = (await everythingToolNames()).map(sanitised).sort();
      expect(expected.length).toBeGreaterThan(3);

      const tools = await allTools(url, 'tag=mcp');
      const names = tools.map((t) => t.name).sort();
      expect(names).toEqual(expected);
      for (const view of tools) {
        const tool = view.tool;
        expect(tool.name.startsWith('mcp.everything.')).toBe(true);
        expect(tool.providers).toHaveLength(1);
        expect(tool.providers[0]).toMatchObject({ name: 'mcp', config: { server: 'everything', tool: tool.id } });
        expect(sanitised(tool.providers[0].config.tool)).toBe(tool.name);
        expect(tool.execution).toMatchObject({ timeoutSec: 30, allowParallel: false });
        expect(tool.approval).toMatchObject({ consent: true });
        expect(view.personas).toEqual([]);
      }
      // the manifest tool is there too, not tagged mcp
      const every = (await allTools(url)).map((t) => t.name);
      expect(every).toContain('text.reverse');
      expect(names).not.toContain('text.reverse');

      // the cache file was written beside the config
      const cache = join(dir, '.toolcap', 'mcp', 'mcp.everything.json');
      expect(existsSync(cache)).toBe(true);
      const doc = JSON.parse(readFileSync(cache, 'utf8'));
      expect(doc.toolcap).toBe(1);
      expect(doc.tools.map((t: any) => t.name).sort()).toEqual(expected);

      const health = await getJson(`${url}/health`);
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('ok');
      expect(s.out()).toContain('everything up');

      // stopping serve closes the MCP clients: the server's child process (running in the config folder) ends
      if (process.platform === 'linux') expect(processesIn(realpathSync(dir)).length).toBeGreaterThan(0);
      s.stop();
      expect(await s.done).toBe(0);
      if (process.platform === 'linux') await until(() => processesIn(realpathSync(dir)).length === 0, 15_000, 'the MCP server process ending');
      expect(s.err()).toContain('toolcap: stopping');
    },
    T,
  );

  it(
    'applies the config: global deny list, per-server allow list, defaults and persona',
    async () => {
      const dir = project(
        EVERYTHING_CONFIG(
          `  denyTools: ['*long*']\n`,
          `      allowTools: [echo, get-sum, trigger-long-running-operation]\n      persona: ops\n      defaults: { consent: false, timeoutSec: 5 }\n`,
        ),
      );
      const s = serve(dir);
      const url = await s.url;

      const ops = await allTools(url, 'tag=mcp&persona=ops');
      expect(ops.map((t) => t.name).sort()).toEqual(['mcp.everything.echo', 'mcp.everything.get-sum']);
      for (const view of ops) {
        expect(view.personas).toEqual(['ops']);
        expect(view.tool.scope).toEqual({ personas: ['ops'] });
        expect(view.tool.approval).toMatchObject({ consent: false });
        expect(view.tool.execution).toMatchObject({ timeoutSec: 5, allowParallel: false });
      }
      // another persona sees the shared tools only: the ops-scoped tools are absent
      const other = await allTools(url, 'persona=dev');
      expect(other.map((t) => t.name)).toContain('text.reverse');
      expect(other.some((t) => t.name.startsWith('mcp.'))).toBe(false);
      // /tools without a persona: this principal has no default persona and no '*' grant, so shared tools only (persona-scoped ones are never listed without the persona)
      expect(await allTools(url, 'tag=mcp')).toEqual([]);
      expect((await allTools(url, 'tag=mcp&persona=ops')).map((t) => t.key).sort()).toEqual(['mcp.everything.echo@ops', 'mcp.everything.get-sum@ops']);
      // the MCP gateway: a session without a persona gets the shared tools only, an ops session the ops tools too
      expect(await gatewayToolNames(`${url}/mcp`)).not.toContain('mcp.everything.echo');
      const opsNames = await gatewayToolNames(`${url}/mcp?persona=ops`);
      expect(opsNames).toContain('mcp.everything.echo');
      expect(opsNames).toContain('text.reverse');

      // and callable for ops at once (consent false), not without the persona
      const call = await postJson(`${url}/tools/mcp.everything.echo/call`, { arguments: { message: 'hi ops' }, persona: 'ops' });
      expect(call.status).toBe(200);
      expect(JSON.stringify(call.body.result)).toContain('hi ops');
      const outside = await postJson(`${url}/tools/mcp.everything.echo/call`, { arguments: { message: 'hi' } });
      expect(outside.status).toBeGreaterThanOrEqual(400);
      expect(outside.status).toBeLessThan(500);
    },
    T,
  );

  it(
    'calls a discovered tool through approvals: 202, approve runs it, audit and metrics record it',
    async () => {
      const dir = project(EVERYTHING_CONFIG());
      const s = serve(dir);
      const url = await s.url;

      const pending = await postJson(`${url}/tools/mcp.everything.echo/call`, { arguments: { message: 'hello toolcap' } });
      expect(pending.status).toBe(202);
      expect(pending.body.status).toBe('pending_approval');
      const id: string = pending.body.approval.id;
      expect(typeof id).toBe('string');
      expect(pending.headers.get('location')).toBe(`/approvals/${id}`);

      const approved = await postJson(`${url}/approvals/${id}/approve`, { by: 'tester' });
      expect(approved.status).toBe(200);
      expect(approved.body.approval).toMatchObject({ id, status: 'executed' });
      expect(approved.body.call).toMatchObject({ status: 'ok', tool: 'mcp.everything.echo' });
      expect(JSON.stringify(approved.body.call.result)).toContain('hello toolcap');

      const audit = await getJson(`${url}/audit?tool=mcp.everything.echo`);
      expect(audit.status).toBe(200);
      const kinds = audit.body.audit.map((a: any) => a.kind);
      expect(kinds).toContain('call.pending_approval');
      expect(kinds).toContain('approval.approved');
      expect(kinds).toContain('call.ok');

      const metrics = await fetch(`${url}/metrics`);
      expect(metrics.status).toBe(200);
      const text = await metrics.text();
      expect(text).toMatch(/toolcap_tool_calls_total\{[^}]*tool="mcp\.everything\.echo"[^}]*\} [1-9]/);
    },
    T,
  );

  it(
    'a reviewed manifest for a discovered tool overrides the discovered defaults: the call runs at once',
    async () => {
      const reviewed = `toolcap: 1
tools:
  - name: mcp.everything.echo
    version: 1.0.0
    description: Echo a message back (reviewed).
    effects: { mode: read, sideEffects: none, risk: low, reversible: full }
    approval: { required: false, consent: false }
`;
      const dir = project(EVERYTHING_CONFIG(), { 'm/reviewed.yaml': reviewed });
      const s = serve(dir);
      const url = await s.url;

      const view = (await getJson(`${url}/tools/mcp.everything.echo`)).body;
      expect(view.tool.approval).toMatchObject({ consent: false });
      expect(view.tool.effects).toMatchObject({ sideEffects: 'none', risk: 'low' });
      expect(view.tool.providers[0]).toMatchObject({ name: 'mcp', config: { server: 'everything', tool: 'echo' } });

      const call = await postJson(`${url}/tools/mcp.everything.echo/call`, { arguments: { message: 'reviewed' } });
      expect(call.status).toBe(200);
      expect(call.body).toMatchObject({ status: 'ok', tool: 'mcp.everything.echo' });
      expect(JSON.stringify(call.body.result)).toContain('reviewed');
      // an unreviewed sibling still needs approval
      const other = await postJson(`${url}/tools/mcp.everything.get-sum/call`, { arguments: { a: 1, b: 2 } });
      expect(other.status).toBe(202);
    },
    T,
  );

  it(
    'serves the MCP gateway at /mcp: lists manifest and discovered tools, runs text.reverse, gates mcp.everything.echo by approval',
    async () => {
      const dir = project(EVERYTHING_CONFIG());
      const s = serve(dir);
      const url = await s.url;

      const client = new Client({ name: 'gateway-test', version: '1.0.0' });
      clients.push(client);
      await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
      const names: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        names.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
      } while (cursor);
      expect(names).toContain('text.reverse');
      expect(names).toContain('mcp.everything.echo');
      expect(names.filter((n) => n.startsWith('mcp.everything.')).length).toBeGreaterThan(3);

      const reversed = await client.callTool({ name: 'text.reverse', arguments: { text: 'toolcap' } });
      expect(reversed.isError).not.toBe(true);
      expect(JSON.stringify(reversed.content)).toContain('pacloot');

      const gated = await client.callTool({ name: 'mcp.everything.echo', arguments: { message: 'via gateway' } });
      expect(gated.isError).toBe(true);
      const text = (gated.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('\n');
      expect(text).toContain('APPROVAL_REQUIRED');
      const approvals = await getJson(`${url}/approvals?tool=mcp.everything.echo&status=pending`);
      expect(approvals.body.approvals).toHaveLength(1);
      const id: string = approvals.body.approvals[0].id;
      expect(text).toContain(id);
      expect((gated._meta as any)?.['toolcap.dev/error']).toMatchObject({ code: 'APPROVAL_REQUIRED', approvalId: id });
    },
    T,
  );

  it(
    'a server that cannot start: serve still starts, its cached tools stay listed as down, calls fail with 503 naming it',
    async () => {
      const ghostCache = JSON.stringify({
        toolcap: 1,
        tools: [{ name: 'mcp.ghost.ping', version: '1.0.0', description: 'x', providers: [{ name: 'mcp', config: { server: 'ghost', tool: 'ping' } }] }],
      });
      const dir = project(`mcp:\n  servers:\n    ghost:\n      command: ${JSON.stringify(join(tmpdir(), 'toolcap-no-such-command-xyz'))}\n`, {
        '.toolcap/mcp/mcp.ghost.json': ghostCache,
      });
      const s = serve(dir);
      const url = await s.url;

      const health = await getJson(`${url}/health`);
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('ok');
      expect(s.err()).toMatch(/MCP server "ghost" is down \(could not connect: command not found/);
      expect(s.out()).toContain('ghost down');

      const tools = await allTools(url);
      const ping = tools.find((t) => t.name === 'mcp.ghost.ping');
      expect(ping).toBeDefined();
      expect(ping.health.status).toBe('down');
      expect(tools.map((t) => t.name)).toContain('text.reverse');

      // the cached tool declares no effects: its mode derives to write, so approval.required; the approved run finds no healthy provider
      const call = await postJson(`${url}/tools/mcp.ghost.ping/call`, { arguments: {} });
      expect(call.status).toBe(202);
      const failed = await postJson(`${url}/approvals/${call.body.approval.id}/approve`, {});
      expect(failed.status).toBe(503);
      expect(failed.body.code).toBe('NO_HEALTHY_PROVIDER');
      expect(JSON.stringify(failed.body)).toContain('MCP server \\"ghost\\"');
    },
    T,
  );

  it(
    'follows tool list changes at run time: a new tool appears in /tools after list_changed',
    async () => {
      const dir = project(`mcp:\n  servers:\n    changing:\n${nodeServer(CHANGING)}      defaults: { consent: false, sideEffects: read_external_service }\n`);
      const s = serve(dir);
      const url = await s.url;

      const before = (await allTools(url, 'tag=mcp')).map((t) => t.name);
      expect(before).toEqual(['mcp.changing.add_tool']);

      const call = await postJson(`${url}/tools/mcp.changing.add_tool/call`, { arguments: {} });
      expect(call.status).toBe(200);
      expect(JSON.stringify(call.body.result)).toContain('added_1');

      const after = await until(
        async () => {
          const names = (await allTools(url, 'tag=mcp')).map((t) => t.name);
          return names.includes('mcp.changing.added_1') ? names : undefined;
        },
        30_000,
        'mcp.changing.added_1 listed',
      );
      expect(after.sort()).toEqual(['mcp.changing.add_tool', 'mcp.changing.added_1']);
      const doc = JSON.parse(readFileSync(join(dir, '.toolcap', 'mcp', 'mcp.changing.json'), 'utf8'));
      expect(doc.tools.map((t: any) => t.name).sort()).toEqual(['mcp.changing.add_tool', 'mcp.changing.added_1']);

      // the new tool runs too
      const added = await postJson(`${url}/tools/mcp.changing.added_1/call`, { arguments: {} });
      expect(added.status).toBe(200);
      expect(JSON.stringify(added.body.result)).toContain('added_1');
    },
    T,
  );
});

describe('the MCP settings change while serving', () => {
  it('a changed filter reconnects and re-discovers; a removed server takes its tools away', async () => {
    const config = (servers: string) => `mcp:\n  servers:\n${servers}`;
    const everything = (allow: string) => `    everything:\n${nodeServer(EVERYTHING, ['stdio'])}      allowTools: ${allow}\n`;
    const dir = project(config(everything('[echo, get-sum]')));
    const s = serve(dir, []); // watching: config edits apply live
    const url = await s.url;
    const names = async () => ((await getJson(`${url}/tools?tag=mcp`)).body.tools as Array<{ name: string }>).map((t) => t.name).sort();
    expect(await names()).toEqual(['mcp.everything.echo', 'mcp.everything.get-sum']);

    writeFileSync(join(dir, 'toolcap.config.yaml'), `sources: [m/]\n${config(everything('[echo]'))}`);
    await until(async () => JSON.stringify(await names()) === JSON.stringify(['mcp.everything.echo']), 45_000, 'the narrowed tool list');
    // the host says so once the old clients are closed, which the registry's reload can beat
    await until(() => s.err().includes('the MCP settings changed'), 15_000, 'the settings-changed line');

    writeFileSync(join(dir, 'toolcap.config.yaml'), `sources: [m/]\nmcp:\n  enabled: false\n`);
    await until(async () => (await names()).length === 0, 45_000, 'the tools of the disabled servers to go');
    // the catalog's own tools are untouched
    expect((await getJson(`${url}/tools/text.reverse`)).status).toBe(200);
  }, 120_000);
});
