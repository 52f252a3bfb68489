// Issue 16: memory of open MCP sessions. `toolcap serve` on Stripe's OpenAPI
// spec (../shared/corpus/openapi/stripe.spec3.json, 417 tools, 23 tools/list
// pages of up to 8 MiB); three Streamable HTTP sessions are opened one after
// another, each lists every page and stays open. Resident memory (VmRSS)
// after load (the baseline of the same run) and after each session, with
// the ratio to the baseline and each session's growth. Before the fix the
// SDK's transport kept every answered JSON-mode POST until its session
// closed (src/mcp/answered-streams.ts): 1 session ~630 MiB, 3 ~1.4 GiB.
// The serving process is not told to collect garbage: RSS is what it holds
// in normal running, one second after each listing.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { rss, serveChild } from './serve-child.mjs';
import { fmt, mib } from './stats.mjs';

const SPEC = fileURLToPath(new URL('../../shared/corpus/openapi/stripe.spec3.json', import.meta.url));
const SESSIONS = 3;
const SETTLE_MS = 1000;

/** Resident memory (bytes) of a process, from /proc. */

/** `toolcap serve` on the spec; its MCP URL and process. */
async function serve() {
  const { child, url } = await serveChild([SPEC]);
  return { child, mcp: new URL(`${url}/mcp`) };
}

/** Every tools/list page of a new session (left open): pages and bytes. */
async function listAll(client) {
  let cursor;
  let pages = 0;
  let bytes = 0;
  do {
    // request(), not listTools(): the SDK client would compile every listed outputSchema
    const page = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ListToolsResultSchema);
    bytes += Buffer.byteLength(JSON.stringify(page));
    pages++;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return { pages, bytes };
}

export async function run() {
  const { child, mcp } = await serve();
  const clients = [];
  try {
    const base = rss(child.pid);
    console.log(`\n## MCP sessions: toolcap serve on Stripe's spec, ${SESSIONS} Streamable HTTP sessions each listing every tools/list page and staying open`);
    console.log('| open sessions (each listed all pages) | pages listed | bytes listed | RSS | ratio to after load | growth over the previous row |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    console.log(`| 0 (after load; baseline) | - | - | ${mib(base)} | 1.00x | - |`);
    let previous = base;
    const rows = [];
    for (let i = 1; i <= SESSIONS; i++) {
      const client = new Client({ name: 'bench-sessions', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(mcp));
      clients.push(client);
      const listed = await listAll(client);
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const now = rss(child.pid);
      rows.push(now);
      console.log(`| ${i} | ${listed.pages} | ${mib(listed.bytes)} | ${mib(now)} | ${fmt(now / base, 2)}x | ${mib(now - previous)} |`);
      previous = now;
    }
    console.log(`RSS with ${SESSIONS} sessions / with 1: ${fmt(rows.at(-1) / rows[0], 2)}x; each session past the first adds ${mib((rows.at(-1) - rows[0]) / (SESSIONS - 1))} on average (before the fix: ~350 MiB, its whole listing)`);
  } finally {
    for (const c of clients) await c.close().catch(() => undefined);
    child.kill();
  }
}
