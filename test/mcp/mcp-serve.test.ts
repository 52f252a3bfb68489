/**
 * `toolcap mcp serve` in-process: the gateway over stdio streams, with only
 * protocol messages on stdout, stopping when stdin ends or on a signal.
 */
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpServeCommand } from '../../src/cli/mcp.js';
import { APPROVAL_STATUS_TOOL } from '../../src/mcp/approval-status.js';
import { closeAll, copyExamples, OPS_TOOL, StreamClientTransport, within, writeManifest } from './gateway-helpers.js';

afterEach(closeAll);

describe('toolcap mcp serve (stdio, in-process)', () => {
  it('serves tools/list and tools/call with only protocol messages on stdout, and stops when stdin ends', async () => {
    const { root } = copyExamples();
    const config = join(root, 'examples', 'toolcap.config.yaml');
    writeFileSync(config, 'sources:\n  - manifests/\nstore:\n  path: .toolcap/toolcap.db\n');
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    const stdout: string[] = [];
    fromServer.on('data', (chunk: Buffer) => stdout.push(chunk.toString('utf8')));
    const stderr: string[] = [];
    const controller = new AbortController();
    const running = mcpServeCommand([], { config, watch: false }, {
      stdout: (t) => stdout.push(`(io.stdout) ${t}`),
      stderr: (t) => stderr.push(t),
      signal: controller.signal,
      stdin: toServer,
      stdoutStream: fromServer,
    });

    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(new StreamClientTransport(fromServer, toServer));
    const { tools } = await client.listTools();
    // the catalog's tools, then the gateway's own status tool when it serves a principal (the config's local one)
    expect(tools.map((t) => t.name).filter((n) => n !== APPROVAL_STATUS_TOOL)).toEqual(['notes.append', 'text.reverse', 'text.word_count', 'toolcap.catalog_summary']);
    const r = await client.callTool({ name: 'text.reverse', arguments: { text: 'stdio' } });
    expect(r.structuredContent).toEqual({ reversed: 'oidts' });
    await client.close(); // ends the server's stdin

    const code = await within(running, 10_000, 'mcp serve to stop');
    expect(code).toBe(0);
    controller.abort();
    const lines = stdout.join('').split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(stderr.join('')).toContain('toolcap mcp: serving 4 tools');
    expect(stderr.join('')).toContain('stopping');
  });

  it('stops on io.signal and reports a broken config on stderr only', async () => {
    const { root, manifests } = copyExamples();
    // a persona must be known to be served: the ops tool makes "ops" one
    writeManifest(join(manifests, 'ops.yaml'), [OPS_TOOL]);
    const config = join(root, 'examples', 'toolcap.config.yaml');
    writeFileSync(config, 'sources:\n  - manifests/\nstore:\n  path: .toolcap/toolcap.db\n');
    const stdin = new PassThrough();
    const out = new PassThrough();
    const written: string[] = [];
    out.on('data', (c: Buffer) => written.push(c.toString()));
    const stderr: string[] = [];
    const controller = new AbortController();
    const running = mcpServeCommand([], { config, watch: false, persona: 'ops' }, { stdout: (t) => written.push(t), stderr: (t) => stderr.push(t), signal: controller.signal, stdin, stdoutStream: out });
    // wait until it serves, then stop it
    await within(
      (async () => {
        while (!stderr.join('').includes('serving')) await new Promise((r) => setImmediate(r));
      })(),
      10_000,
      'mcp serve to start',
    );
    controller.abort();
    expect(await within(running, 10_000, 'mcp serve to stop')).toBe(0);
    expect(stderr.join('')).toContain('for persona "ops"');
    expect(written).toEqual([]);

    // a persona nobody knows (or spelt otherwise) is refused at start, naming the ones this principal may use; nothing reaches stdout
    for (const persona of ['Ops', 'ops ', 'nobody']) {
      const refused: string[] = [];
      const code = await mcpServeCommand([], { config, watch: false, persona }, { stdout: (t) => written.push(t), stderr: (t) => refused.push(t), stdin: new PassThrough(), stdoutStream: out });
      expect(code, persona).toBe(2);
      expect(refused.join(''), persona).toContain('may use: ops');
    }
    expect(written).toEqual([]);

    const broken = join(root, 'broken.yaml');
    writeFileSync(broken, 'sources: [: nope\n');
    const errs: string[] = [];
    const bad = await mcpServeCommand([], { config: broken }, { stdout: (t) => written.push(t), stderr: (t) => errs.push(t), stdin: new PassThrough(), stdoutStream: out });
    expect(bad).not.toBe(0);
    expect(errs.join('')).not.toBe('');
    expect(written).toEqual([]);
  });
});

