// Issue 16, item 1: OpenAPI schemas by reference. For the Stripe and GitHub
// REST specs, every command's output size against the spec's own bytes, the
// largest and median tool written out (canonical and self-contained), the
// MCP gateway's tools/list pages, and `serve` resident memory after load and
// a /tools request against a same-run baseline: a process that only parses
// the spec and keeps it.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { buildCatalog } from '../dist/index.js';
import { run as runCli } from '../dist/cli/program.js';
import { jsonSize } from '../dist/model/json-size.js';
import { shareDefs } from '../dist/model/schema-defs.js';
import { mcpToolOf } from '../dist/mcp/projection.js';
import { rss, serveChild } from './serve-child.mjs';
import { fmt, mib } from './stats.mjs';

const CORPUS = new URL('../../shared/corpus/openapi/', import.meta.url).pathname;
const SPECS = ['stripe.spec3.json', 'github.api.github.com.json'];

/** One CLI command in-process: exit code, bytes written (stdout, or the --out file/folder), wall ms. */
async function command(argv, out) {
  let bytes = 0;
  const t0 = performance.now();
  const code = await runCli(argv, { stdout: (t) => (bytes += Buffer.byteLength(t)), stderr: () => {} });
  const ms = performance.now() - t0;
  if (out !== undefined) bytes = statSync(out).isDirectory() ? readdirSync(out).reduce((n, f) => n + statSync(join(out, f)).size, 0) : statSync(out).size;
  return { code, bytes, ms };
}

/** Median and largest of a list of sizes. */
function spread(sizes) {
  const sorted = [...sizes].sort((a, b) => a - b);
  return { median: sorted[sorted.length >> 1], max: sorted.at(-1) };
}

/** A process that only parses the spec and keeps it: the baseline for serve's memory. */
async function parseOnlyRss(spec) {
  const child = spawn(process.execPath, ['-e', `globalThis.kept = JSON.parse(require('fs').readFileSync(${JSON.stringify(spec)}, 'utf8')); console.log('ready'); setInterval(() => {}, 1000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => child.stdout.once('data', resolve));
  const bytes = rss(child.pid);
  child.kill();
  return bytes;
}

/** `toolcap serve` on the spec: RSS after load and after GET /tools?limit=500, /tools bytes, MCP tools/list pages. */
async function serve(spec) {
  const { child, url } = await serveChild([spec]);
  try {
    const afterLoad = rss(child.pid);
    const t0 = performance.now();
    const page = await fetch(`${url}/tools?limit=500`);
    const toolsBytes = Buffer.byteLength(await page.text());
    const toolsMs = performance.now() - t0;
    const afterTools = rss(child.pid);
    const client = new Client({ name: 'bench-schemas', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    const pages = [];
    let cursor;
    do {
      // request(), not listTools(): the SDK client would compile every listed outputSchema (seconds per Stripe page)
      const result = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ListToolsResultSchema);
      pages.push({ bytes: Buffer.byteLength(JSON.stringify(result)), tools: result.tools.length });
      cursor = result.nextCursor;
    } while (cursor !== undefined);
    await client.close();
    return { afterLoad, afterTools, toolsBytes, toolsMs, pages, afterMcp: rss(child.pid) };
  } finally {
    child.kill();
  }
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-bench-schemas-'));
  try {
    console.log('\n## OpenAPI schemas by reference: output sizes vs spec bytes, tools written out, serve memory');
    console.log(`load average ${fmt((await import('node:os')).loadavg()[0], 2)}`);
    for (const file of SPECS) {
      const spec = join(CORPUS, file);
      const specBytes = statSync(spec).size;
      const t0 = performance.now();
      JSON.parse(readFileSync(spec, 'utf8'));
      const parseMs = performance.now() - t0;
      const catalog = buildCatalog([spec]).catalog;
      const tools = catalog.tools.map((e) => e.value);
      const canonical = spread(shareDefs(tools).tools.map(jsonSize));
      const self = spread(tools.map((t) => jsonSize(mcpToolOf(t))));
      console.log(`\n### ${file}: ${mib(specBytes)}, ${tools.length} tools; JSON.parse ${fmt(parseMs)} ms`);
      console.log('| command | exit | output | ratio to spec bytes (aim ≤ 3x) | wall | ratio to JSON.parse |');
      console.log('| --- | --- | --- | --- | --- | --- |');
      const rows = [
        ['inspect --json', ['inspect', '--json', spec]],
        ['list --json --limit 500', ['list', '--json', '--limit', '500', spec]],
        ['convert --to toolcap (JSON)', ['convert', '--to', 'toolcap', spec, '--out', join(dir, `${file}.toolcap.json`)], join(dir, `${file}.toolcap.json`)],
        ['convert --to openai', ['convert', '--to', 'openai', spec]],
        ['convert --to mcp (folder)', ['convert', '--to', 'mcp', spec, '--out', join(dir, `${file}.mcp`)], join(dir, `${file}.mcp`)],
      ];
      for (const [label, argv, out] of rows) {
        const r = await command(argv, out);
        const note = label.startsWith('convert --to mcp') ? ' (self-contained: not held to 3x)' : '';
        console.log(`| ${label} | ${r.code} | ${mib(r.bytes)} | ${fmt(r.bytes / specBytes, 2)}x${note} | ${fmt(r.ms / 1000, 2)} s | ${fmt(r.ms / parseMs, 0)}x |`);
      }
      console.log(`tool written out, canonical (shared $defs apart): median ${canonical.median} B, largest ${canonical.max} B; self-contained (MCP definition with its own $defs): median ${self.median} B, largest ${self.max} B`);
      const base = await parseOnlyRss(spec);
      const s = await serve(spec);
      const largest = Math.max(...s.pages.map((p) => p.bytes));
      console.log(`serve RSS: after load ${mib(s.afterLoad)}, after GET /tools?limit=500 ${mib(s.afterTools)} (aim ≤ 250 MiB for Stripe); baseline process holding JSON.parse of the spec ${mib(base)}; ratio ${fmt(s.afterTools / base, 2)}x`);
      console.log(`GET /tools?limit=500: ${mib(s.toolsBytes)} (${fmt(s.toolsBytes / specBytes, 2)}x spec), ${fmt(s.toolsMs)} ms`);
      console.log(`MCP tools/list: ${s.pages.length} pages, largest ${mib(largest)} (aim < 10 MiB), tools per page ${s.pages.map((p) => p.tools).join('/')}; RSS after listing ${mib(s.afterMcp)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
