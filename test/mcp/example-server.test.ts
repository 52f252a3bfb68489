/**
 * The examples' own MCP server (examples/mcp-server/server.mjs), which the
 * example config launches: it runs on the SDK alone, and toolcap's discovery
 * reads its annotations into modes and side effects.
 */
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { McpClients } from '../../src/mcp/clients.js';
import { mcpConfig, nodeServer, removeTemps, tempDir } from './helpers.js';

const SERVER = join(process.cwd(), 'examples', 'mcp-server', 'server.mjs');
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(removeTemps);

const signal = () => new AbortController().signal;

describe('examples/mcp-server: the example config\'s MCP server', () => {
  it('is discovered with modes from its annotations, and its tools answer', async () => {
    const c = new McpClients(mcpConfig([nodeServer('demo', SERVER, [])]), { cacheDir: tempDir() });
    open.push(c);
    await c.start();
    expect(c.status()[0]).toMatchObject({ server: 'demo', state: 'up' });
    const modes = Object.fromEntries(c.tools('demo').map((t) => [t.name, [t.effects?.mode, t.effects?.risk === undefined ? undefined : 'risk']]));
    expect(Object.keys(modes).sort()).toEqual(['add', 'current_time', 'echo', 'forget', 'recall', 'remember'].map((n) => `mcp.demo.${n}`));
    for (const read of ['echo', 'add', 'current_time', 'recall']) expect(modes[`mcp.demo.${read}`]?.[0], read).toBe('read');
    for (const write of ['remember', 'forget']) expect(modes[`mcp.demo.${write}`]?.[0], write).toBe('write');
    const forget = c.tools('demo').find((t) => t.name === 'mcp.demo.forget');
    const remember = c.tools('demo').find((t) => t.name === 'mcp.demo.remember');
    expect(forget?.effects?.reversible).toBe('none');
    expect(remember?.effects?.reversible).not.toBe('none');

    expect(await c.callTool('demo', 'echo', { message: 'hi' }, signal())).toEqual({ content: [{ type: 'text', text: 'Echo: hi' }] });
    expect(await c.callTool('demo', 'remember', { key: 'k', note: 'n' }, signal())).toEqual({ content: [{ type: 'text', text: 'Saved "k".' }] });
    expect(await c.callTool('demo', 'recall', { key: 'k' }, signal())).toEqual({ content: [{ type: 'text', text: 'n' }] });
    expect(await c.callTool('demo', 'forget', { key: 'k' }, signal())).toEqual({ content: [{ type: 'text', text: 'Forgot "k".' }] });
    // a tool error (isError) is a provider error for the runtime
    await expect(c.callTool('demo', 'recall', { key: 'k' }, signal())).rejects.toThrow('No note "k".');
  }, 30_000);
});
