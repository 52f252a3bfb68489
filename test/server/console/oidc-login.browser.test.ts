/**
 * The console's browser sign-in in a real browser (Debian's Chromium
 * through playwright-core), with the OpenID provider on another site than
 * toolcap (`localhost` against `127.0.0.1`), so the browser applies its
 * SameSite rules as it would with a real provider: the `SameSite=Lax`
 * pending cookie reaches the callback on the provider's cross-site
 * redirect, and the `SameSite=Strict` session cookie is sent once the
 * callback's page moves on by itself. The counter-check shows the setup is
 * really cross-site: a navigation started on the provider's site does not
 * carry the session cookie.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveCli } from '../../cli/helpers.js';
import { startIssuer, type TestIssuer } from '../../helpers/oidc.js';
import { artifactsDir, chromiumPath } from './browser.js';

const executablePath = chromiumPath();
if (!executablePath) console.warn('console OIDC browser test skipped: no Chromium (apt-get install -y chromium, or set TOOLCAP_CHROMIUM)');

const AUDIENCE = 'https://toolcap.test';

let root: string;
let idp: TestIssuer;
let server: Awaited<ReturnType<typeof serveCli>>;
let browser: Browser;

describe.skipIf(!executablePath)('browser sign-in with the OpenID provider, in Chromium', () => {
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'toolcap-console-oidc-'));
    const project = join(root, 'ws', 'proj');
    mkdirSync(project, { recursive: true });
    cpSync('examples/manifests/toolcap', join(project, 'toolcap'), { recursive: true });
    idp = await startIssuer({
      host: 'localhost',
      audience: AUDIENCE,
      accounts: { alice: { roles: ['caller'] } },
      webClients: [{ clientId: 'toolcap-console', redirectUri: 'http://127.0.0.1/ui/login/callback' }],
    });
    const file = join(project, 'toolcap.config.yaml');
    writeFileSync(file, `sources: [toolcap/]\nstore: { path: .toolcap/console.db }\nauth:\n  oidc:\n    issuer: ${idp.issuer}\n    audience: ${AUDIENCE}\n    console: { clientId: toolcap-console, scope: openid tools, resource: ${AUDIENCE} }\n`);
    server = await serveCli(['--config', file]);
    browser = await chromium.launch({ executablePath: executablePath!, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (server) expect(await server.stop()).toBe(0);
    await idp?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('signs in through the provider\'s pages and lands on the page asked for, signed in', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/?q=notes`);
    await page.waitForURL(/\/ui\/login\?next=/);
    await page.getByRole('link', { name: `Sign in with ${idp.issuer}` }).click();
    await page.waitForURL(`${idp.issuer}/interaction/**`);
    await page.locator('input[name=login]').fill('alice');
    await page.locator('input[name=password]').fill('anything');
    await page.locator('button[type=submit]').click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${server.url}/?q=notes`);
    await expect.poll(() => page.locator('.who').textContent()).toContain('Signed in as alice (caller)');
    await page.screenshot({ path: join(artifactsDir(), 'oidc-signed-in.png'), fullPage: true });
    const cookies = await context.cookies(server.url);
    expect(cookies.find((c) => c.name === 'toolcap_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(cookies.find((c) => c.name === 'toolcap_oidc')).toBeUndefined();

    // the counter-check: from the provider's site, a navigation to the console does not send the Strict cookie
    await page.goto(`${idp.issuer}/.well-known/openid-configuration`);
    await page.evaluate(`location.href = ${JSON.stringify(`${server.url}/ui/tools/notes.append`)}`);
    await page.waitForURL(/\/ui\/login\?next=/);
    // while a navigation on the console's own site does
    await page.goto(`${server.url}/`);
    await expect.poll(() => page.locator('.who').textContent()).toContain('Signed in as alice');
    await context.close();
  });
});
