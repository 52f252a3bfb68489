/**
 * The README's first command, as a newcomer meets it: `toolcap serve` in
 * local mode prints the console's URL, and that URL opens on the catalog
 * (no sign-in: every request is the local principal), with a session
 * cookie for its forms; the JSON API is where it was.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveCli } from './helpers.js';

let dir: string;
let served: Awaited<ReturnType<typeof serveCli>>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolcap-cli-console-'));
  const config = join(dir, 'toolcap.config.yaml');
  writeFileSync(config, `sources: [${resolve('examples/manifests')}, ${resolve('examples/overrides')}]\nstore: { path: ${join(dir, 'toolcap.db')} }\n`);
  served = await serveCli(['--config', config]);
});
afterAll(async () => {
  expect(await served.stop()).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

describe('toolcap serve and the web console', () => {
  it('prints the console URL, which opens on the catalog', async () => {
    const printed = /web console: (http\S+)/.exec(served.stdout())?.[1];
    expect(printed).toBe(`${served.url}/`);
    const res = await fetch(printed!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('set-cookie')).toMatch(/^toolcap_session=[\w-]+; Path=\/; HttpOnly; SameSite=Strict/);
    const html = await res.text();
    expect(html).toContain('<h1>Catalog</h1>');
    expect(html).toContain('Signed in as <strong>local</strong>');
    expect(html).toMatch(/<a href="\/ui\/tools\/notes\.append">notes\.append<\/a>/);
    expect((await fetch(`${served.url}/tools?limit=1`)).headers.get('content-type')).toMatch(/application\/json/);
  });
});
