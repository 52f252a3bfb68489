import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { Registry, type ChangeSource } from '../../src/registry/registry.js';
import { createApi } from '../../src/server/app.js';
import { call, cleanFolders, folder, getJson, manifest, replace, until } from './helpers.js';

afterAll(() => cleanFolders());

const A_NAMES = ['a.x'];
const B_NAMES = ['b.y', 'b.z', 'b.zz'];
const A = manifest(A_NAMES, 'catalog A');
const B = manifest(B_NAMES, 'catalog B');
const BROKEN = 'toolcap: 1\ntools:\n  - name: [unclosed\n    description: oops\n';

/** The snapshot etag of one content, from a registry of its own. */
async function etagOf(text: string): Promise<string> {
  const dir = folder();
  writeFileSync(join(dir, 'tools.yaml'), text);
  const reg = new Registry({ paths: [dir] });
  const event = await reg.start();
  expect(event.kind).toBe('reloaded');
  const etag = reg.snapshot().etag;
  await reg.close();
  return etag;
}

interface Seen {
  path: string;
  status: number;
  header: string | null;
  text: string;
}

async function fire(app: Hono, paths: readonly string[]): Promise<Seen[]> {
  return Promise.all(
    paths.map(async (path) => {
      const res = await call(app, path);
      return { path, status: res.status, header: res.headers.get('etag'), text: await res.text() };
    }),
  );
}

describe('reload under concurrent HTTP reads', () => {
  it('every answer is entirely catalog A or entirely catalog B, never a mix', async () => {
    const etagA = await etagOf(A);
    const etagB = await etagOf(B);
    expect(etagA).not.toBe(etagB);
    const expected = new Map([
      [etagA, A_NAMES],
      [etagB, B_NAMES],
    ]);

    const dir = folder();
    const file = join(dir, 'tools.yaml');
    replace(file, A);
    const registry = new Registry({ paths: [dir] });
    await registry.start();
    expect(registry.snapshot().etag).toBe(etagA);
    const app = createApi(registry, { cacheEntries: 4 });

    const paths = ['/tools', '/summary', '/tools?limit=1', '/tools?mode=read', '/search?q=tool&limit=100', '/tools?enabled=true'];
    const seen: Seen[] = [];
    const reloads: Array<Promise<unknown>> = [];
    const ROUNDS = 40;
    for (let round = 1; round <= ROUNDS; round++) {
      replace(file, round % 2 === 1 ? B : A);
      const batch = fire(app, [...paths, ...paths, ...paths]);
      const refresh = registry.refresh({ force: true });
      reloads.push(refresh);
      const late = fire(app, paths);
      if (round % 3 === 0) await refresh;
      const after = fire(app, paths);
      seen.push(...(await batch), ...(await late), ...(await after));
    }
    await Promise.all(reloads);
    seen.push(...(await fire(app, paths)));

    const etagsSeen = new Set<string>();
    const bodyByHttpEtag = new Map<string, string>();
    for (const s of seen) {
      expect(s.status, s.path).toBe(200);
      const body = JSON.parse(s.text);
      expect([etagA, etagB], s.path).toContain(body.etag);
      etagsSeen.add(body.etag);
      const names = expected.get(body.etag) ?? [];
      if (s.path === '/summary') {
        expect(body.counts.tools, s.text).toBe(names.length);
      } else if (s.path.startsWith('/search')) {
        for (const c of body.candidates) expect(names, s.text).toContain(c.name);
        expect(body.candidates.length).toBe(names.length);
      } else {
        expect(body.total, s.text).toBe(names.length);
        const listed = body.tools.map((t: any) => t.name);
        expect(listed, s.path).toEqual(s.path.includes('limit=1') ? names.slice(0, 1) : names);
        for (const t of body.tools) expect(t.tool.description).toContain(body.etag === etagA ? 'catalog A' : 'catalog B');
      }
      // one HTTP etag, one body
      const key = `${s.path}|${s.header}`;
      const earlier = bodyByHttpEtag.get(key);
      if (earlier !== undefined) expect(s.text).toBe(earlier);
      else bodyByHttpEtag.set(key, s.text);
    }
    // both catalogs were really served during the run
    expect(etagsSeen).toEqual(new Set([etagA, etagB]));
    // ROUNDS is even: the last write was A
    expect(registry.snapshot().etag).toBe(etagA);
    const final = await getJson(app, '/tools');
    expect(final.body.tools.map((t: any) => t.name)).toEqual(A_NAMES);
    await registry.close();
  });

  it('a broken manifest: the last good snapshot keeps serving, /health degraded with file and line; a fix serves the new content', async () => {
    const dir = folder();
    const file = join(dir, 'tools.yaml');
    replace(file, B);
    const registry = new Registry({ paths: [dir] });
    await registry.start();
    const app = createApi(registry);
    const good = await getJson(app, '/tools');
    expect(good.body.tools.map((t: any) => t.name)).toEqual(B_NAMES);
    const goodEtag = good.res.headers.get('etag') ?? '';

    replace(file, BROKEN);
    const failed = await registry.refresh();
    expect(failed.kind).toBe('failed');

    // concurrent reads during and after the failed reload: still B
    const during = await Promise.all(Array.from({ length: 20 }, () => getJson(app, '/tools')));
    for (const d of during) {
      expect(d.res.status).toBe(200);
      expect(d.body.tools.map((t: any) => t.name)).toEqual(B_NAMES);
      expect(d.res.headers.get('etag')).toBe(goodEtag);
    }
    expect((await call(app, '/tools', { headers: { 'if-none-match': goodEtag } })).status).toBe(304);
    expect((await getJson(app, '/summary')).body.counts.tools).toBe(B_NAMES.length);

    const health = await getJson(app, '/health');
    expect(health.res.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'degraded', ok: false, version: 1, etag: registry.snapshot().etag });
    const diags = health.body.lastError.diagnostics as Array<{ file?: string; line?: number; severity: string; code: string }>;
    const located = diags.filter((d) => d.severity === 'error' && typeof d.file === 'string' && d.file.endsWith('tools.yaml') && typeof d.line === 'number');
    expect(located.length, JSON.stringify(diags)).toBeGreaterThan(0);
    for (const d of located) {
      expect(d.line).toBeGreaterThanOrEqual(1);
      expect(d.line).toBeLessThanOrEqual(BROKEN.split('\n').length);
    }
    expect(located.map((d) => d.code)).toContain('PARSE_ERROR');
    expect(health.res.headers.get('cache-control')).toBe('no-store');

    const C_NAMES = ['c.fixed', 'c.more'];
    replace(file, manifest(C_NAMES));
    expect((await registry.refresh()).kind).toBe('reloaded');
    const fixed = await getJson(app, '/tools', { headers: { 'if-none-match': goodEtag } });
    expect(fixed.res.status).toBe(200);
    expect(fixed.body.tools.map((t: any) => t.name)).toEqual(C_NAMES);
    expect((await getJson(app, '/health')).body).toMatchObject({ status: 'ok', ok: true, lastError: null, version: 2 });
    await registry.close();
  });

  it('an injected change source: a signal reloads; a broken edit degrades; a fix recovers', async () => {
    let signal: (() => void) | undefined;
    let closed = false;
    const changes: ChangeSource = {
      start: async (onChange) => {
        signal = onChange;
      },
      close: async () => {
        closed = true;
      },
    };
    const dir = folder();
    const file = join(dir, 'tools.yaml');
    replace(file, A);
    const registry = new Registry({ paths: [dir], changes, debounceMs: 5 });
    await registry.start();
    const app = createApi(registry);
    expect((await getJson(app, '/health')).body).toMatchObject({ status: 'ok', watching: true });
    expect(signal).toBeDefined();

    replace(file, B);
    signal?.();
    await until(async () => (await getJson(app, '/tools')).body.total === B_NAMES.length, 10_000, 'catalog B served');
    expect((await getJson(app, '/tools')).body.tools.map((t: any) => t.name)).toEqual(B_NAMES);

    replace(file, BROKEN);
    signal?.();
    await until(async () => (await getJson(app, '/health')).body.status === 'degraded', 10_000, '/health degraded');
    expect((await getJson(app, '/tools')).body.tools.map((t: any) => t.name)).toEqual(B_NAMES);

    replace(file, A);
    signal?.();
    await until(async () => (await getJson(app, '/health')).body.status === 'ok', 10_000, '/health ok again');
    expect((await getJson(app, '/tools')).body.tools.map((t: any) => t.name)).toEqual(A_NAMES);
    await registry.close();
    expect(closed).toBe(true);
  });
});
