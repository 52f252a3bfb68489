/**
 * One owner for MCP annotations: for every tool of real catalogs
 * (../shared/corpus: the GitHub MCP server, the reference servers,
 * LiveMCPBench's servers, OpenAPI specs), the annotation hints that
 * `toolcap convert --to mcp` writes (the mcp dialect's export) equal the
 * ones the gateway's `tools/list` gives for the same loaded tool.
 *
 * Only the four hints are compared: where a title goes differs on purpose
 * (the export puts it back where the source had it, the gateway also writes
 * it into `annotations` for older clients), and the export gives back
 * unknown annotation fields and `null`s (`"annotations": null`,
 * `"destructiveHint": null`, read as absent) verbatim.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mcpDialect } from '../../src/dialects/mcp.js';
import { createGatewayServer } from '../../src/mcp/server.js';
import type { Tool } from '../../src/model/schema.js';
import { closeAll, connect, listAll, openEnv, tempDir } from './gateway-helpers.js';

const CORPUS = '../shared/corpus';
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
const REFERENCE_SERVERS = ['everything', 'fetch', 'filesystem', 'git', 'memory', 'sequentialthinking', 'time'];

afterAll(closeAll);

/** The one LiveMCPBench server whose input schema the registry refuses (INVALID_JSON_SCHEMA), so no gateway can serve it. */
const REFUSED = new Set(['pdf-reader-mcp']);

/**
 * LiveMCPBench nests each server's `tools/list` output as
 * `tools[serverKey].tools` (see test/corpus/livemcpbench.test.ts); each is
 * written out as a server capture, one file per server, in one folder. Tool
 * names get the server key as a namespace, as several servers share names
 * (`search`, `read_file`) and one layer may not hold a name twice.
 */
function liveMcpBenchFolder(): string {
  const dir = join(tempDir('toolcap-livemcpbench-'), 'servers');
  mkdirSync(dir);
  const servers = JSON.parse(readFileSync(join(CORPUS, 'livemcpbench/tools.json'), 'utf8')) as Array<{
    tools: Record<string, { server_name?: unknown; version?: unknown; tools: Array<{ name: string }> }>;
  }>;
  for (const server of servers) {
    for (const [key, entry] of Object.entries(server.tools)) {
      if (REFUSED.has(key)) continue;
      const tools = entry.tools.map((tool) => ({ ...tool, name: `${key}.${tool.name}` }));
      const capture = { serverInfo: { name: entry.server_name ?? key, version: entry.version }, tools };
      writeFileSync(join(dir, `${key}.json`), JSON.stringify(capture, null, 2));
    }
  }
  return dir;
}

/** The four hints of an `annotations` value (absent, null or an object); a null hint is absent, as the dialect reads it. */
function hintsIn(annotations: unknown): Record<string, unknown> {
  const object = (annotations ?? {}) as Record<string, unknown>;
  return Object.fromEntries(HINTS.filter((key) => object[key] !== undefined && object[key] !== null).map((key) => [key, object[key]]));
}

/** The annotations the mcp dialect's export writes for one loaded tool. */
function exportedAnnotations(tool: Tool): unknown {
  const [file] = mcpDialect.export({ tools: [tool] });
  return (file?.value as { tools: Array<Record<string, unknown>> }).tools[0]?.['annotations'];
}

const CATALOGS: Array<{ name: string; paths: () => string[]; atLeast: number; annotated: number }> = [
  { name: 'mcp-github-server/tools.json', paths: () => [join(CORPUS, 'mcp-github-server/tools.json')], atLeast: 114, annotated: 114 },
  ...REFERENCE_SERVERS.map((server) => ({
    name: `mcp-reference-servers/${server}.json`,
    paths: () => [join(CORPUS, `mcp-reference-servers/${server}.json`)],
    atLeast: 1,
    annotated: 0,
  })),
  { name: 'livemcpbench (70 servers)', paths: () => [liveMcpBenchFolder()], atLeast: 500, annotated: 40 },
  { name: 'openapi/swagger-petstore3.openapi.yaml', paths: () => [join(CORPUS, 'openapi/swagger-petstore3.openapi.yaml')], atLeast: 10, annotated: 0 },
  { name: 'openapi/slack.web-api.swagger2.json', paths: () => [join(CORPUS, 'openapi/slack.web-api.swagger2.json')], atLeast: 100, annotated: 0 },
];

describe.each(CATALOGS)('$name', ({ paths, atLeast, annotated }) => {
  it('annotates every tool the same in the export and in tools/list', { timeout: 60_000 }, async () => {
    const env = await openEnv(paths());
    const tools = env.registry.snapshot().callableTools();
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime }));
    const { tools: listed } = await listAll(client);

    expect(tools.length).toBeGreaterThanOrEqual(atLeast);
    expect(listed.map((t) => t.name)).toEqual(tools.map((t) => t.name));
    tools.forEach((tool, i) => {
      expect(hintsIn(listed[i]?.annotations), tool.name).toEqual(hintsIn(exportedAnnotations(tool)));
    });
    // not vacuous: the catalogs whose servers annotate their tools give hints
    expect(listed.filter((t) => Object.keys(hintsIn(t.annotations)).length > 0).length).toBeGreaterThanOrEqual(annotated);
  });
});
