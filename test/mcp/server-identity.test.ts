/**
 * McpClients.identity: the configured command and args (or URL), the
 * reported serverInfo and the listed schema's hash; kept while the server
 * is down and across a restart (from the cache file), changed by a new
 * schema, and what the mcp provider's codeIdentity rests on.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { McpClients } from '../../src/mcp/clients.js';
import { createMcpProviderType } from '../../src/runtime/providers/mcp.js';
import type { Tool } from '../../src/model/schema.js';
import { mcpConfig, nodeServer, removeTemps, serverConfig, tempDir } from './helpers.js';

const T = 30_000;
const FAMILY = join(import.meta.dirname, 'fixtures', 'family.mjs');
const open: McpClients[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(removeTemps);

describe('McpClients.identity', () => {
  it('names the server, its reported version and the schema; a changed schema changes it, a restart does not', { timeout: T }, async () => {
    const dir = tempDir();
    const schemaFile = join(dir, 'schema.json');
    writeFileSync(schemaFile, JSON.stringify({ type: 'object', properties: { a: { type: 'string' } } }));
    const server = nodeServer('family', FAMILY, [], { env: { FAMILY_SCHEMA_FILE: schemaFile, FAMILY_VERSION: '3.1.4' } });
    const cacheDir = join(dir, 'cache');
    const clients = () => {
      const c = new McpClients(mcpConfig([server]), { cacheDir, killGraceMs: 200 });
      open.push(c);
      return c;
    };
    const c = clients();
    expect(c.identity('family', 'probe')).toEqual({ command: process.execPath, args: [FAMILY] });
    expect(c.identity('nobody', 'probe')).toBeUndefined();
    await c.start();
    const first = c.identity('family', 'probe');
    expect(first).toMatchObject({ command: process.execPath, args: [FAMILY], name: 'family', version: '3.1.4', inputSchema: expect.stringMatching(/^sha256:/) });

    const provider = createMcpProviderType(c).create({ name: 'mcp', priority: 0, config: { server: 'family', tool: 'probe' } }, { name: 'mcp.family.probe' } as Tool, { env: {}, baseDir: dir });
    const before = await provider.codeIdentity!();

    writeFileSync(schemaFile, JSON.stringify({ type: 'object', properties: { a: { type: 'number' } } }));
    await c.discover('family');
    const changed = c.identity('family', 'probe');
    expect(changed?.inputSchema).not.toBe(first?.inputSchema);
    expect(changed).toMatchObject({ name: 'family', version: '3.1.4' });
    expect(await provider.codeIdentity!()).not.toBe(before);

    // down, and a new process over the same cache: the last known values, not a bare config
    await c.close();
    expect(c.identity('family', 'probe')).toEqual(changed);
    expect(clients().identity('family', 'probe')).toEqual(changed);
  });

  it('an HTTP server is named by its URL', () => {
    const c = new McpClients(mcpConfig([serverConfig('remote', { transport: 'http', url: 'https://mcp.example.com/mcp' })]), { cacheDir: tempDir() });
    expect(c.identity('remote', 'x')).toEqual({ url: 'https://mcp.example.com/mcp' });
  });
});
