// Issue 16, item 1: the two largest real OpenAPI specs of the corpus (Stripe,
// 4.2 MB, 417 operations, cyclic components; GitHub REST, 3.6 MB, 771) through
// every command and reader, with shared component schemas written once.
// One catalog is loaded per spec and reused; the CLI runs in-process.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { mcpDialect } from '../../src/dialects/mcp.js';
import { toolcapDialect } from '../../src/dialects/toolcap.js';
import { jsonSize } from '../../src/model/json-size.js';
import { jsonEqual } from '../../src/model/objects.js';
import { defRefNames, reachedDefs, SCHEMA_FIELDS } from '../../src/model/schema-defs.js';
import type { Tool } from '../../src/model/schema.js';
import { createAjv } from '../../src/model/validator.js';
import { buildCatalog, toolsForExport, type CatalogResult } from '../../src/registry/catalog.js';
import { createSnapshot } from '../../src/registry/snapshot.js';
import { ArgumentChecker } from '../../src/runtime/arguments.js';
import { cli } from '../cli/helpers.js';
import { spawn } from 'node:child_process';
import { get as httpGet } from 'node:http';
import { fileURLToPath } from 'node:url';
import { mcpNameFor } from '../../src/dialects/mcp/names.js';

/** A GET on a connection of its own (no keep-alive socket left for the MCP client to trip over). */
function get(url: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    httpGet(url, { agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

const BIN = fileURLToPath(new URL('../../bin/toolcap.js', import.meta.url));

/** `toolcap serve` as its own process (dist/bin, the built CLI), in a temp folder for its store; resolves with its URL. */
async function serveBin(spec: string): Promise<{ url: string; stop: () => void }> {
  const cwd = mkdtempSync(join(tmpdir(), 'toolcap-by-reference-serve-'));
  const child = spawn(process.execPath, [BIN, 'serve', '--no-watch', '--port', '0', spec], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  let errors = '';
  child.stderr.on('data', (d) => (errors += d));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      printed += d;
      const m = / at (https?:\/\/\S+)/.exec(printed);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve ended (${code}): ${errors}`)));
  });
  return { url, stop: () => (child.kill(), rmSync(cwd, { recursive: true, force: true })) };
}

const CORPUS = new URL('../../../shared/corpus/openapi/', import.meta.url).pathname;
const MB = 1024 * 1024;

interface Spec {
  file: string;
  tools: number;
  /** A tool whose output reaches recursive components. */
  deep: string;
  /** A tool with a required argument, and arguments that break its schema. */
  call: { tool: string; bad: Record<string, unknown>; good: Record<string, unknown> };
}

const SPECS: Spec[] = [
  {
    file: 'stripe.spec3.json',
    tools: 417,
    deep: 'post_customers',
    call: { tool: 'get_customers_customer', bad: { customer: 7 }, good: { customer: 'cus_1' } },
  },
  {
    file: 'github.api.github.com.json',
    tools: 771,
    deep: 'issues.list_events_for_timeline',
    call: { tool: 'repos.get', bad: { owner: 'o' }, good: { owner: 'o', repo: 'r' } },
  },
];

const loaded = new Map<string, CatalogResult>();
function load(spec: Spec): CatalogResult {
  let result = loaded.get(spec.file);
  if (result === undefined) loaded.set(spec.file, (result = buildCatalog([join(CORPUS, spec.file)])));
  return result;
}
const tools = (spec: Spec): Tool[] => load(spec).catalog.tools.map((e) => e.value);
const specBytes = (spec: Spec) => statSync(join(CORPUS, spec.file)).size;

const temp = mkdtempSync(join(tmpdir(), 'toolcap-by-reference-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe.each(SPECS)('$file', (spec) => {
  const path = join(CORPUS, spec.file);

  it('imports every operation without errors', () => {
    const result = load(spec);
    expect(result.catalog.tools).toHaveLength(spec.tools);
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it("gives every schema exactly the definitions it reaches, and every reference resolves in the schema's own $defs", () => {
    let withDefs = 0;
    for (const tool of tools(spec)) {
      for (const field of SCHEMA_FIELDS) {
        const schema = tool[field];
        if (typeof schema !== 'object') continue;
        const defs = (schema['$defs'] ?? {}) as Record<string, unknown>;
        if (Object.keys(defs).length > 0) withDefs++;
        expect(Object.keys(defs).sort(), `${tool.name} ${field}`).toEqual(reachedDefs(schema).sort());
        for (const name of defRefNames(schema)) expect(defs, `${tool.name} ${field} -> ${name}`).toHaveProperty([name]);
      }
    }
    expect(withDefs).toBeGreaterThan(0);
  });

  it('writes the canonical catalog with shared definitions once, at most 3x the spec, and reads it back to the same tools', () => {
    const [file] = toolcapDialect.export({ tools: toolsForExport(load(spec).catalog, 'toolcap') });
    const value = file!.value as { $defs?: Record<string, unknown>; tools: readonly Tool[] };
    expect(Object.keys(value.$defs ?? {}).length).toBeGreaterThan(0);
    expect(jsonSize(value)).toBeLessThanOrEqual(3 * specBytes(spec));
    const out = join(temp, `${spec.file}.toolcap.json`);
    writeFileSync(out, JSON.stringify(value));
    const again = buildCatalog([out]);
    expect(again.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const back = new Map(again.catalog.tools.map((e) => [e.key, e.value]));
    for (const entry of load(spec).catalog.tools) {
      const other = back.get(entry.key)!;
      for (const field of SCHEMA_FIELDS) expect(jsonEqual(entry.value[field], other[field]), `${entry.key} ${field}`).toBe(true);
      // the same tool; only the list of derived fields differs (written as declarations, as convert always does)
      expect(jsonEqual({ ...entry.value, derived: undefined }, { ...other, derived: undefined }), entry.key).toBe(true);
    }
  });

  it('compiles self-contained schemas with Ajv (recursive components included) and checks call arguments', () => {
    const ajv = createAjv();
    const deep = tools(spec).find((t) => t.name === spec.deep)!;
    const { $schema: _s, ...output } = deep.outputSchema as Record<string, unknown>;
    expect(Object.keys(output['$defs'] as object).length).toBeGreaterThan(0);
    expect(() => ajv.compile(output)).not.toThrow();
    const snapshot = createSnapshot(load(spec), { version: 1, builtAt: new Date(0).toISOString() });
    const checker = new ArgumentChecker();
    const tool = snapshot.tool(spec.call.tool)!;
    expect(checker.check(snapshot, tool, spec.call.good)).toEqual(spec.call.good);
    expect(() => checker.check(snapshot, tool, spec.call.bad)).toThrow(/do not match the input schema/);
  });

  it('exports MCP tools self-contained, in files toolcap reads back', () => {
    const files = mcpDialect.export({ tools: toolsForExport(load(spec).catalog, 'mcp') });
    const listed = files.flatMap((f) => (f.value as { tools: Array<Record<string, unknown>> }).tools);
    expect(listed).toHaveLength(spec.tools);
    for (const file of files) expect(jsonSize(file.value)).toBeLessThan(16 * MB);
    const canonical = tools(spec).find((t) => t.name === spec.deep)!;
    const deep = listed.find((t) => t['name'] === mcpNameFor(canonical))!;
    const output = deep['outputSchema'] as Record<string, unknown>;
    for (const name of defRefNames(output)) expect(output['$defs']).toHaveProperty([name]);
  });

  it.each([
    ['inspect', ['inspect', '--json']],
    ['list', ['list', '--json', '--limit', '500']],
    ['convert to toolcap', ['convert', '--to', 'toolcap', '--out', '{out}.json']],
    ['convert to openai', ['convert', '--to', 'openai']],
  ])('toolcap %s succeeds within 3x the spec', async (_what, argv) => {
    const out = join(temp, `${spec.file}.${argv[0]}.${argv[2]}`);
    const run = await cli(...argv.map((a) => a.replace('{out}', out)), path);
    expect(run.code, run.stderr).toBe(0);
    const bytes = argv.includes('--out') ? statSync(`${out}.json`).size : Buffer.byteLength(run.stdout);
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(3 * specBytes(spec));
    if (argv[0] !== 'convert') expect(JSON.parse(run.stdout)).toHaveProperty('$defs');
  });

  it('serves /tools with shared definitions once, /tools/{name} self-contained, and MCP tools/list pages under 10 MB', { timeout: 120_000 }, async () => {
    // every request first, the checks after: heavy checks between requests would outlast the server's keep-alive
    const served = await serveBin(path);
    let text: string;
    let one: { tool: Tool };
    const pages: Array<{ bytes: number; names: string[] }> = [];
    try {
      const page = await get(`${served.url}/tools?limit=500`);
      expect(page.status).toBe(200);
      text = page.text;
      one = JSON.parse((await get(`${served.url}/tools/${spec.deep}`)).text) as { tool: Tool };
      const client = new Client({ name: 'by-reference-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
      let cursor: string | undefined;
      do {
        // request(), not listTools(): the SDK client compiles every listed outputSchema, seconds per Stripe page, which this test does not measure
        const result = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ListToolsResultSchema);
        pages.push({ bytes: Buffer.byteLength(JSON.stringify(result)), names: result.tools.map((t) => t.name) });
        cursor = result.nextCursor;
      } while (cursor !== undefined);
      await client.close();
    } finally {
      served.stop();
    }
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(3 * specBytes(spec));
    const body = JSON.parse(text) as { $defs?: Record<string, unknown>; tools: Array<{ tool: Tool }> };
    expect(Object.keys(body.$defs ?? {}).length).toBeGreaterThan(0);
    // every reference a listed schema makes resolves in its own $defs or the page's
    for (const { tool } of body.tools) {
      for (const field of SCHEMA_FIELDS) {
        const schema = tool[field];
        const own = typeof schema === 'object' ? ((schema['$defs'] ?? {}) as object) : {};
        for (const name of defRefNames(schema)) expect(name in own || name in body.$defs!, `${tool.name} -> ${name}`).toBe(true);
      }
    }
    expect(() => createAjv().compile(one.tool.outputSchema as object)).not.toThrow();
    for (const page of pages) expect(page.bytes).toBeLessThan(10 * MB);
    const listed = new Set(pages.flatMap((p) => p.names));
    for (const tool of tools(spec)) expect(listed.has(tool.name), tool.name).toBe(true);
  });
});

it('reads what convert wrote: the canonical file of the Stripe catalog', () => {
  const file = join(temp, 'stripe.spec3.json.convert.toolcap.json');
  const text = readFileSync(file, 'utf8');
  expect(JSON.parse(text)).toHaveProperty('$defs');
  const back = buildCatalog([file]);
  expect(back.catalog.tools).toHaveLength(417);
  expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
});
