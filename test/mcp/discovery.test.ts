import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadLayers } from '../../src/load/loader.js';
import {
  discoveredToolName,
  discoveryCachePath,
  discoveryDocument,
  readDiscoveryCache,
  translateTools,
  writeDiscoveryCache,
  type McpToolDefinition,
} from '../../src/mcp/discovery.js';
import { mcpConfig, removeTemps, serverConfig, tempDir } from './helpers.js';

afterAll(removeTemps);

const schema = { type: 'object', properties: {} };
const plain: McpToolDefinition = { name: 'do_thing', description: 'Does a thing.', inputSchema: schema };
const readOnlyClosed: McpToolDefinition = { name: 'peek', inputSchema: schema, annotations: { readOnlyHint: true, openWorldHint: false } };
const destructiveClosed: McpToolDefinition = { name: 'wipe', inputSchema: schema, annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false } };
const openWrite: McpToolDefinition = { name: 'post', inputSchema: schema, annotations: { destructiveHint: false, openWorldHint: true } };

describe('translateTools', () => {
  it('names tools mcp.<server>.<tool> and gives un-annotated tools the server defaults and an mcp provider', () => {
    const server = serverConfig('srv');
    const { tools, diagnostics } = translateTools(mcpConfig([server]), server, [plain]);
    expect(diagnostics).toEqual([]);
    expect(tools).toHaveLength(1);
    const t = tools[0]!;
    expect(t.name).toBe('mcp.srv.do_thing');
    expect(t.id).toBe('do_thing');
    expect(t.description).toBe('Does a thing.');
    expect(t.effects?.sideEffects).toBe('network');
    expect(t.execution).toMatchObject({ timeoutSec: 30, allowParallel: false, idempotencyKey: false });
    expect(t.approval).toEqual({ consent: true });
    expect(t.providers).toEqual([{ name: 'mcp', priority: 0, config: { server: 'srv', tool: 'do_thing' } }]);
    expect(t.tags).toEqual(['mcp', 'mcp.srv']);
    expect(t.scope).toBeUndefined();
    // Values from the server config are declared, not derived.
    expect(t.derived ?? []).not.toContain('effects.sideEffects');
  });

  it('lets readOnlyHint lower side effects only to read_external_service, never below', () => {
    const server = serverConfig('srv');
    const [t] = translateTools(mcpConfig([server]), server, [readOnlyClosed]).tools;
    expect(t?.effects).toMatchObject({ mode: 'read', sideEffects: 'read_external_service', reversible: 'full' });
    expect(t?.derived).toContain('effects.sideEffects');
    // A server default already below the floor stays.
    const compute = serverConfig('srv', { defaults: { sideEffects: 'compute', timeoutSec: 30, allowParallel: false, consent: true, idempotencyKey: false } });
    expect(translateTools(mcpConfig([compute]), compute, [readOnlyClosed]).tools[0]?.effects?.sideEffects).toBe('compute');
  });

  it('lets annotations make a tool stricter than the defaults, never looser', () => {
    const server = serverConfig('srv');
    const { tools } = translateTools(mcpConfig([server]), server, [destructiveClosed, openWrite]);
    expect(tools[0]?.effects).toMatchObject({ mode: 'write', sideEffects: 'filesystem', reversible: 'none', risk: 'high' });
    expect(tools[1]?.effects).toMatchObject({ mode: 'write', sideEffects: 'write', reversible: 'partial' });
    // A stricter server default beats a looser reading of the annotations.
    const db = serverConfig('srv', { defaults: { sideEffects: 'database', timeoutSec: 30, allowParallel: false, consent: true, idempotencyKey: false } });
    expect(translateTools(mcpConfig([db]), db, [destructiveClosed]).tools[0]?.effects?.sideEffects).toBe('database');
  });

  it('applies server default overrides', () => {
    const server = serverConfig('files', { defaults: { sideEffects: 'filesystem', timeoutSec: 5, allowParallel: true, consent: false, idempotencyKey: true } });
    const [t] = translateTools(mcpConfig([server]), server, [plain]).tools;
    expect(t?.effects?.sideEffects).toBe('filesystem');
    expect(t?.execution).toMatchObject({ timeoutSec: 5, allowParallel: true, idempotencyKey: true });
    expect(t?.approval).toEqual({ consent: false });
  });

  it('scopes tools to the server persona', () => {
    const server = serverConfig('srv', { persona: 'atlas' });
    const [t] = translateTools(mcpConfig([server]), server, [plain]).tools;
    expect(t?.scope).toEqual({ personas: ['atlas'] });
  });

  it('applies global and per-server allow/deny lists, with wildcards, before translation', () => {
    // A broken definition that is filtered out never reaches the importer, so it reports nothing.
    const broken: McpToolDefinition = { name: 'get_broken', inputSchema: 'not an object' };
    const list = [plain, { ...plain, name: 'get_a' }, { ...plain, name: 'get_b' }, { ...plain, name: 'set_a' }, broken];
    const server = serverConfig('srv', { denyTools: ['get_b'] });
    const config = mcpConfig([server], { allowTools: ['get_*', 'mcp.srv.set_a'], denyTools: ['get_broken'] });
    const { tools, diagnostics } = translateTools(config, server, list);
    expect(tools.map((t) => t.name)).toEqual(['mcp.srv.get_a', 'mcp.srv.set_a']);
    expect(diagnostics).toEqual([]);
    // Without the deny entry the same definition is reported by the importer.
    const open = translateTools(mcpConfig([serverConfig('srv')]), serverConfig('srv'), [broken]);
    expect(open.diagnostics.length).toBeGreaterThan(0);
    // Per-server allow list.
    const only = serverConfig('srv', { allowTools: ['set_*'] });
    expect(translateTools(mcpConfig([only]), only, list).tools.map((t) => t.name)).toEqual(['mcp.srv.set_a']);
  });

  it('judges a tool by the name toolcap lists it under too: a server cannot step around a deny entry by the case or shape of its name', () => {
    // the operator denies the tool as `toolcap list` shows it; the server names it deleteFile, Delete_File, …
    const server = serverConfig('fs', { denyTools: ['mcp.fs.delete_file'] });
    for (const name of ['delete_file', 'deleteFile', 'Delete_File', 'DELETE_FILE']) {
      expect(translateTools(mcpConfig([server]), server, [{ ...plain, name }]).tools.map((t) => t.name)).toEqual([]);
    }
    // a global wildcard written in the listed names' lower case catches a camelCase name
    const open = serverConfig('fs');
    expect(translateTools(mcpConfig([open], { denyTools: ['*delete*'] }), open, [{ ...plain, name: 'DeleteRepo' }, { ...plain, name: 'readFile' }]).tools.map((t) => t.name)).toEqual(['mcp.fs.read_file']);
    // and an allow list of listed names keeps what it names
    const only = serverConfig('fs', { allowTools: ['mcp.fs.read_*'] });
    expect(translateTools(mcpConfig([only]), only, [{ ...plain, name: 'readFile' }, { ...plain, name: 'writeFile' }]).tools.map((t) => t.name)).toEqual(['mcp.fs.read_file']);
  });

  it('sanitises names and keeps the MCP name for the provider; drops names that cannot be made valid', () => {
    const server = serverConfig('GitHub');
    const [t] = translateTools(mcpConfig([server]), server, [{ ...plain, name: 'Repo/GetIssue' }]).tools;
    expect(t?.name).toBe('mcp.github.repo_get_issue'); // the dialect's folding of the MCP name
    expect(t?.id).toBe('Repo/GetIssue');
    expect(t?.providers?.[0]?.config).toEqual({ server: 'GitHub', tool: 'Repo/GetIssue' });
    expect(t?.derived ?? []).not.toContain('name');

    const bad = serverConfig('-bad');
    const out = translateTools(mcpConfig([bad]), bad, [plain]);
    expect(out.tools).toEqual([]);
    expect(out.diagnostics.map((d) => d.code)).toEqual(['INVALID_TOOL_NAME']);
    expect(discoveredToolName('-bad', 'x')).toBeUndefined();
    expect(discoveredToolName('ok', 'x')).toBe('mcp.ok.x');
  });

  it('reports tools the importer cannot read and tools that fold to one name', () => {
    const server = serverConfig('srv');
    const { tools, diagnostics } = translateTools(mcpConfig([server]), server, [plain, { ...plain, name: 'Do_Thing' }, { name: '', inputSchema: schema }]);
    expect(tools.map((t) => t.name)).toEqual(['mcp.srv.do_thing']);
    expect(diagnostics.map((d) => d.code).sort()).toEqual(['DUPLICATE_TOOL', 'INVALID_VALUE']);
  });
});

describe('discovery cache', () => {
  it('builds a canonical document', () => {
    const doc = discoveryDocument('srv', [], '2025-01-01T00:00:00.000Z');
    expect(doc).toEqual({ toolcap: 1, bundle: { name: 'mcp.srv', metadata: { discoveredAt: '2025-01-01T00:00:00.000Z', server: 'srv' } }, tools: [] });
  });

  it('writes atomically, reads back, and loads as a registry layer', () => {
    const dir = join(tempDir(), 'cache');
    const server = serverConfig('srv');
    const { tools } = translateTools(mcpConfig([server]), server, [plain, readOnlyClosed]);
    const path = writeDiscoveryCache(dir, 'srv', tools, '2025-01-01T00:00:00.000Z');
    expect(path).toBe(discoveryCachePath(dir, 'srv'));
    expect(readdirSync(dir)).toEqual(['mcp.srv.json']);
    expect(JSON.parse(readFileSync(path, 'utf8')).toolcap).toBe(1);
    expect(readDiscoveryCache(dir, 'srv')).toEqual({ tools, discoveredAt: '2025-01-01T00:00:00.000Z' });
    expect(readDiscoveryCache(dir, 'other')).toBeUndefined();

    const loaded = loadLayers([dir]);
    expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const doc = loaded.layers[0]?.documents[0];
    expect(doc?.dialect.id).toBe('toolcap');
    expect(doc?.imported.tools.map((t) => t.value.name)).toEqual(['mcp.srv.do_thing', 'mcp.srv.peek']);
  });
});
