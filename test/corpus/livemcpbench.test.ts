/**
 * LiveMCPBench's 70 real MCP servers (../shared/corpus/livemcpbench, see its
 * SOURCE.md): 527 tools, most with `"annotations": null`, 44 with hints.
 */
import { canonicalName } from '../../src/dialects/mcp/names.js';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mcpDialect } from '../../src/dialects/mcp.js';
import { detectDialect } from '../../src/dialects/lookup.js';
import type { ImportedDocument } from '../../src/dialects/types.js';
import { createImportContext } from '../../src/source/context.js';
import { parseSource } from '../../src/source/source.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import { jsonEqual } from '../../src/model/objects.js';
import { canonicalValidator } from '../../src/model/validator.js';

const FILE = '../shared/corpus/livemcpbench/tools.json';

interface BenchServer {
  name: string;
  tools: Record<string, { server_name?: unknown; version?: unknown; tools: unknown[] }>;
}

interface ServerList {
  server: string;
  /** The extracted document, as an MCP server capture. */
  document: { serverInfo: Record<string, unknown>; tools: unknown[] };
  imported: ImportedDocument;
  diagnostics: Diagnostic[];
}

/**
 * Adapter: LiveMCPBench nests each server's `tools/list` output as
 * `tools[serverKey].tools`, next to the launch config. Each list is taken out
 * as a server capture (`{ serverInfo: { name, version }, tools }`) and
 * imported on its own, so pointers are relative to that extracted document.
 */
function serverLists(): ServerList[] {
  const servers = JSON.parse(readFileSync(FILE, 'utf8')) as BenchServer[];
  return servers.flatMap((server) =>
    Object.entries(server.tools).map(([key, entry]) => {
      const document = { serverInfo: { name: entry.server_name ?? key, version: entry.version }, tools: entry.tools };
      const parsed = parseSource(`livemcpbench/${key}.json`, JSON.stringify(document, null, 2));
      if (!parsed.file) throw new Error(`adapter output for ${key} does not parse`);
      const context = createImportContext(parsed.file);
      return { server: server.name, document, imported: mcpDialect.import(context), diagnostics: context.diagnostics };
    }),
  );
}

describe('livemcpbench/tools.json', () => {
  const lists = serverLists();
  const tools = lists.flatMap((l) => l.imported.tools.map((t) => t.value));

  it('is not itself a tool list', () => {
    const parsed = parseSource(FILE, readFileSync(FILE, 'utf8'));
    expect(detectDialect(parsed.file?.value, { path: FILE })?.dialect.id).not.toBe('mcp');
  });

  it('has 70 servers with 527 tools, each list detected as MCP', () => {
    expect(new Set(lists.map((l) => l.server)).size).toBe(70);
    expect(tools).toHaveLength(527);
    for (const l of lists) expect(mcpDialect.detect(l.document, { path: 'tools.json' }), l.server).toBeGreaterThan(0.5);
  });

  it('imports with no diagnostics: null fields are read as absent', () => {
    expect(lists.flatMap((l) => l.diagnostics)).toEqual([]);
    const nulls = (key: string) => tools.filter((t) => (t.extensions?.['mcp']?.['fields'] as Record<string, unknown> | undefined)?.[key] === null);
    expect(nulls('annotations')).toHaveLength(483);
    expect(nulls('description')).toHaveLength(16);
  });

  it('round-trips every server exactly', () => {
    for (const l of lists) {
      const fragment = { ...(l.imported.bundle ? { bundle: l.imported.bundle } : {}), tools: l.imported.tools.map((t) => t.value) };
      expect(jsonEqual(mcpDialect.export(fragment)[0]?.value, l.document), l.server).toBe(true);
    }
  });

  it('gives canonical entries the published schema accepts', () => {
    const validate = canonicalValidator();
    expect(validate({ toolcap: 1, tools: JSON.parse(JSON.stringify(tools)) as unknown })).toBe(true);
  });

  it('gives hints to the 44 annotated tools and claims nothing for the rest', () => {
    const hinted = tools.filter((t) => t.hints !== undefined);
    expect(hinted).toHaveLength(44);
    expect(hinted.every((t) => t.effects?.mode !== undefined)).toBe(true);
    expect(tools.filter((t) => t.hints === undefined).every((t) => t.effects === undefined && t.execution === undefined)).toBe(true);
  });

  it('renames the 51 names canonical names cannot hold by the shared rule, keeping the MCP name as id', () => {
    const renamed = tools.filter((t) => t.id !== undefined);
    expect(renamed).toHaveLength(51);
    for (const t of renamed) {
      expect(t.name).toBe(canonicalName(t.id ?? ''));
      expect(t.name).toMatch(/^[a-z0-9_][a-z0-9_.-]*$/);
      expect(t.derived).toContain('name');
    }
  });
});
