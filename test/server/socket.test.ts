import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program.js';
import { Registry } from '../../src/registry/registry.js';
import { createApi } from '../../src/server/app.js';
import { listen } from '../../src/server/listen.js';
import { cleanFolders, folder, manifest, replace, until } from './helpers.js';

afterAll(() => cleanFolders());

/** Does a fetch to this URL fail (nothing listening)? */
async function refused(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return false;
  } catch {
    return true;
  }
}

/** Run `toolcap serve` in-process; resolves the base URL once it prints it. */
function serve(args: string[]) {
  const controller = new AbortController();
  let stdout = '';
  let stderr = '';
  const done = run(['serve', ...args], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), signal: controller.signal });
  let finished = false;
  void done.then(() => (finished = true));
  const url = until(
    () => {
      if (finished) throw new Error(`serve ended early: ${stderr}`);
      return /at (http:\/\/\S+)/.exec(stdout)?.[1];
    },
    20_000,
    'serve printing its URL',
  );
  return { url, done, stop: () => controller.abort(), out: () => stdout, err: () => stderr };
}

describe('listen(): the API over a real socket', () => {
  it('answers /tools, /search and /health, and refuses connections after close()', async () => {
    const registry = new Registry({ paths: ['examples/manifests', 'examples/overrides'] });
    await registry.start();
    const server = await listen(createApi(registry), { port: 0 });
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);

    const tools = await fetch(`${server.url}/tools`);
    expect(tools.status).toBe(200);
    expect(tools.headers.get('content-type')).toMatch(/^application\/json/);
    const etag = tools.headers.get('etag') ?? '';
    const body = (await tools.json()) as any;
    expect(body.total).toBe(registry.snapshot().tools.filter((t) => t.enabled !== false).length);
    expect(body.etag).toBe(registry.snapshot().etag);

    const cached = await fetch(`${server.url}/tools`, { headers: { 'if-none-match': etag } });
    expect(cached.status).toBe(304);

    const search = await fetch(`${server.url}/search?q=${encodeURIComponent('search the web')}&explain=1`);
    expect(search.status).toBe(200);
    const ranked = (await search.json()) as any;
    expect(ranked.candidates.length).toBeGreaterThan(0);
    expect(Array.isArray(ranked.candidates[0].penalties)).toBe(true);

    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', version: registry.snapshot().version });

    const bad = await fetch(`${server.url}/tools?max_risk=extreme`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toBe('application/problem+json');
    const post = await fetch(`${server.url}/tools`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    await post.text();

    await server.close();
    expect(await refused(`${server.url}/health`)).toBe(true);
    await registry.close();
  });

  it('rejects with EADDRINUSE when the port is taken', async () => {
    const registry = new Registry({ paths: ['examples/manifests'] });
    await registry.start();
    const first = await listen(createApi(registry), { port: 0 });
    await expect(listen(createApi(registry), { port: first.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await first.close();
    await registry.close();
  });

  it('a chunked body (Transfer-Encoding: chunked, no Content-Length) over maxBodyBytes is 413 problem+json; one within it arrives whole', async () => {
    const registry = new Registry({ paths: ['examples/manifests'] });
    await registry.start();
    const received: string[] = [];
    const server = await listen(createApi(registry, { maxBodyBytes: 1024, mcp: async (r) => new Response(String(received.push(await r.text()))) }), { port: 0 });
    const post = (chunks: string[]) =>
      new Promise<{ status: number; type: string | undefined; noLength: boolean; body: string }>((resolve, reject) => {
        const req = httpRequest(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], noLength: !req.hasHeader('content-length'), body }));
        });
        req.on('error', reject);
        for (const chunk of chunks) req.write(chunk);
        req.end();
      });
    const over = await post(Array.from({ length: 8 }, () => 'x'.repeat(256)));
    expect(over.noLength).toBe(true);
    expect(over.status).toBe(413);
    expect(over.type).toBe('application/problem+json');
    expect(JSON.parse(over.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    expect(received).toEqual([]);
    const within = await post(['{"jsonrpc":', '"2.0"}']);
    expect(within.status).toBe(200);
    expect(received).toEqual(['{"jsonrpc":"2.0"}']);
    await server.close();
    await registry.close();
  });
});

describe('toolcap serve, in-process', () => {
  it('prints its URL, serves /summary, and on abort exits 0 and closes the port', async () => {
    const s = serve(['examples/manifests', 'examples/overrides', '--port', '0', '--no-watch']);
    const url = await s.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const summary = await fetch(`${url}/summary`);
    expect(summary.status).toBe(200);
    const body = (await summary.json()) as any;
    expect(body.counts.tools).toBeGreaterThan(0);
    const health = (await (await fetch(`${url}/health`)).json()) as any;
    expect(health).toMatchObject({ status: 'ok', watching: false });
    s.stop();
    expect(await s.done).toBe(0);
    expect(s.err()).toContain('stopping');
    expect(await refused(`${url}/summary`)).toBe(true);
  });

  it('a port already in use: exit 2 naming EADDRINUSE', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as AddressInfo).port;
    try {
      let stderr = '';
      const code = await run(['serve', 'examples/manifests', '--port', String(port), '--no-watch'], {
        stdout: () => {},
        stderr: (t) => (stderr += t),
        signal: new AbortController().signal,
      });
      expect(code).toBe(2);
      expect(stderr).toContain('EADDRINUSE');
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });

  it('a broken catalog: exit 1, nothing served', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'tools.yaml'), 'toolcap: 1\ntools:\n  - name: [unclosed\n');
    let stdout = '';
    let stderr = '';
    const code = await run(['serve', dir, '--port', '0', '--no-watch'], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), signal: new AbortController().signal });
    expect(code).toBe(1);
    expect(stdout).not.toContain('http://');
    expect(stderr).toContain('nothing to serve');
  });

  it.each(['abc', '-1', '65536', '1.5', ''])('--port %j: exit 2', async (port) => {
    let stderr = '';
    const code = await run(['serve', 'examples/manifests', '--port', port, '--no-watch'], { stdout: () => {}, stderr: (t) => (stderr += t), signal: new AbortController().signal });
    expect(code).toBe(2);
    expect(stderr.length).toBeGreaterThan(0);
  });

  it('watching: an edit goes live; a broken edit degrades /health and keeps the old tools; a fix recovers', async () => {
    const dir = folder();
    const file = join(dir, 'tools.yaml');
    replace(file, manifest(['w.first']));
    const s = serve([dir, '--port', '0']);
    try {
      const url = await s.url;
      expect(s.out()).toContain('Watching');
      const names = async () => ((await (await fetch(`${url}/tools`)).json()) as any).tools.map((t: any) => t.name) as string[];
      expect(await names()).toEqual(['w.first']);

      replace(file, manifest(['w.first', 'w.second']));
      await until(async () => (await names()).includes('w.second'), 30_000, 'the edited tool served');
      expect(await names()).toEqual(['w.first', 'w.second']);

      replace(file, 'toolcap: 1\ntools:\n  - name: [unclosed\n');
      const health = await until(
        async () => {
          const h = (await (await fetch(`${url}/health`)).json()) as any;
          return h.status === 'degraded' ? h : undefined;
        },
        30_000,
        '/health degraded',
      );
      expect(health.ok).toBe(false);
      expect(health.lastError.diagnostics.some((d: any) => d.severity === 'error' && String(d.file).endsWith('tools.yaml') && typeof d.line === 'number')).toBe(true);
      expect(await names()).toEqual(['w.first', 'w.second']);
      expect(s.err()).toContain('reload failed');

      replace(file, manifest(['w.third']));
      await until(async () => (await names()).includes('w.third'), 30_000, 'the fixed catalog served');
      expect(((await (await fetch(`${url}/health`)).json()) as any).status).toBe('ok');
    } finally {
      s.stop();
    }
    expect(await s.done).toBe(0);
  }, 120_000);
});
