/**
 * The web console in a real browser (Debian's Chromium through
 * playwright-core) against a real `toolcap serve` with API keys: sign in,
 * search and read the ranking's explanation, open a tool and see its
 * provenance, ask for a call as one principal and approve it as another in
 * the console (the queue updating by server-sent events, the requester's
 * own approval refused), find it in the audit log and its trace, break a
 * manifest and see the located diagnostic with the last good snapshot still
 * serving. axe-core runs on every page (no serious or critical violation),
 * one page is checked at phone width, and each page is saved as a
 * screenshot (TOOLCAP_ARTIFACTS, default test-artifacts/console).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/program.js';
import { artifactsDir, axe, chromiumPath, severe, type AxeViolation } from './browser.js';

const executablePath = chromiumPath();
if (!executablePath) console.warn('console browser tests skipped: no Chromium (apt-get install -y chromium, or set TOOLCAP_CHROMIUM)');

let root: string;
let project: string;
let url: string;
let stop: () => Promise<number>;
let browser: Browser;
const keys: Record<'root' | 'bot' | 'ann', string> = { root: '', bot: '', ann: '' };
const axeResults: Record<string, AxeViolation[]> = {};

async function cli(...argv: string[]): Promise<string> {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
  if (code !== 0) throw new Error(`toolcap ${argv.join(' ')}: ${code} ${stderr}`);
  return stdout.trim();
}

/** A served toolcap, watching its files, until `stop`. */
async function serve(config: string): Promise<{ url: string; stop: () => Promise<number> }> {
  const controller = new AbortController();
  let stdout = '';
  let stderr = '';
  const done = run(['serve', '--port', '0', '--config', config], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), signal: controller.signal, env: {} });
  const end = Date.now() + 30_000;
  while (!/web console: (http\S+)/.test(stdout)) {
    if (Date.now() > end) throw new Error(`serve printed no console URL: ${stderr}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return { url: /web console: (http\S+?)\/? /.exec(stdout)![1]!, stop: async () => (controller.abort(), done) };
}

async function signIn(context: BrowserContext, key: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${url}/`);
  await page.waitForURL(/\/ui\/login/);
  await page.getByLabel('API key or access token').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${url}/`);
  return page;
}

/** axe on the page (kept for the report), and a screenshot. */
async function check(page: Page, name: string): Promise<void> {
  const violations = await axe(page);
  axeResults[name] = violations;
  await page.screenshot({ path: join(artifactsDir(), `${name}.png`), fullPage: true });
  expect(severe(violations), `${name}: ${JSON.stringify(violations)}`).toEqual([]);
}

describe.skipIf(!executablePath)('the web console in Chromium', () => {
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'toolcap-console-'));
    project = join(root, 'ws', 'proj');
    cpSync('examples/manifests', join(project, 'manifests'), { recursive: true });
    cpSync('examples/overrides', join(project, 'overrides'), { recursive: true });
    const config = join(project, 'toolcap.config.yaml');
    writeFileSync(config, 'sources: [manifests/, overrides/]\nstore: { path: .toolcap/console.db }\nauth: { apiKeys: { enabled: true } }\n');
    keys.root = await cli('keys', 'create', '--config', config, '--principal', 'root', '--role', 'admin');
    keys.bot = await cli('keys', 'create', '--config', config, '--principal', 'ci-bot', '--role', 'caller', '--role', 'approver', '--approves-persona', '*');
    keys.ann = await cli('keys', 'create', '--config', config, '--principal', 'ann', '--role', 'approver', '--approves-persona', '*');
    ({ url, stop } = await serve(config));
    browser = await chromium.launch({ executablePath: executablePath!, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (stop) expect(await stop()).toBe(0);
    rmSync(root, { recursive: true, force: true });
    console.log(`axe (violations by impact, per page): ${JSON.stringify(Object.fromEntries(Object.entries(axeResults).map(([k, v]) => [k, v.map((x) => `${x.impact}:${x.id}`)])))}`);
  });

  it('axe, as injected here, does report violations (the zero below means something)', async () => {
    const page = await browser.newPage();
    await page.setContent('<!doctype html><html><head><title>t</title></head><body><main><img src="data:,"><input type="text"></main></body></html>');
    expect(severe(await axe(page)).map((v) => v.id)).toEqual(expect.arrayContaining(['image-alt', 'label']));
    await page.close();
  });

  it('signs in with an API key, searches with the explanation, opens a tool with its provenance', async () => {
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
    const page = await signIn(context, keys.root);
    await expect(page.getByRole('heading', { name: 'Catalog' }).isVisible()).resolves.toBe(true);
    await expect(page.locator('.counts').textContent()).resolves.toMatch(/By mode:.*By risk:/s);
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'toolcap_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    await check(page, 'catalog');
    // the keyboard: the first Tab reaches the skip link, which moves focus to the content
    await page.keyboard.press('Tab');
    await expect(page.evaluate<string>('document.activeElement.textContent')).resolves.toBe('Skip to content');
    await page.keyboard.press('Enter');
    await expect(page.evaluate<string>('document.activeElement.id')).resolves.toBe('main');

    await page.getByLabel('Search for a task').fill('append a line to the team notes');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/q=append/);
    const first = page.locator('tbody tr').first();
    await expect(first.textContent()).resolves.toContain('notes.append');
    await first.locator('summary').first().click();
    // the explanation: the terms matched, each penalty with its points and reason
    await expect(first.locator('details').first().textContent()).resolves.toMatch(/Matched: .*(append|note)[\s\S]*−[\d.]+ approval: /);
    await check(page, 'search');
    await page.screenshot({ path: join(artifactsDir(), 'search-viewport.png') });

    await first.getByRole('link', { name: 'notes.append' }).click();
    await page.waitForURL(/\/ui\/tools\/notes\.append/);
    const provenance = await page.locator('#provenance + ol').textContent();
    expect(provenance).toMatch(/manifests\/toolcap\/runtime-tools\.yaml:\d+:\d+ · layer 0/);
    await expect(page.locator('#fields + div').textContent()).resolves.toMatch(/effects\.risk.*declared/s);
    await expect(page.getByText(/sha256:/).first().isVisible()).resolves.toBe(true);
    await check(page, 'tool');

    // a derived value says why
    await page.goto(`${url}/ui/tools/browser_lookup`);
    await expect(page.locator('#fields + div').textContent()).resolves.toMatch(/derived \((assumed|translated)\)/);
    await context.close();
  });

  it('asks as one principal and approves as another, the queue updating live; four eyes refuse the requester', async () => {
    const annContext = await browser.newContext({ bypassCSP: true });
    const ann = await signIn(annContext, keys.ann);
    await ann.getByRole('link', { name: 'Approvals' }).click();
    await ann.waitForURL(/\/ui\/approvals/);
    await expect(ann.locator('#queue').textContent()).resolves.toMatch(/No pending requests/);

    const asked = await fetch(`${url}/tools/notes.append/call`, { method: 'POST', headers: { authorization: `Bearer ${keys.bot}`, 'content-type': 'application/json' }, body: JSON.stringify({ arguments: { line: 'reviewed in the console' } }) });
    expect(asked.status).toBe(202);
    const { approval } = (await asked.json()) as { approval: { id: string } };

    // no reload: the event stream says the queue changed and the script fetches it
    const card = ann.locator('article', { hasText: 'notes.append' });
    await card.waitFor({ timeout: 15_000 });
    await expect(card.textContent()).resolves.toMatch(/ci-bot[\s\S]*matches the serving manifest[\s\S]*reviewed in the console/);
    await check(ann, 'approvals');

    const botContext = await browser.newContext({ bypassCSP: true });
    const bot = await signIn(botContext, keys.bot);
    await bot.goto(`${url}/ui/approvals`);
    const own = bot.locator('article', { hasText: 'notes.append' });
    await expect(own.textContent()).resolves.toMatch(/You asked for this call/);
    await own.getByRole('button', { name: 'Approve and run' }).click();
    await expect(bot.getByRole('alert').textContent()).resolves.toMatch(/SELF_APPROVAL/);
    await botContext.close();

    await card.getByLabel('Reason (recorded in the audit log)').fill('looks right');
    await card.getByRole('button', { name: 'Approve and run' }).click();
    await expect(ann.getByRole('status').first().textContent()).resolves.toMatch(/Approved notes\.append/);
    const decided = await fetch(`${url}/approvals/${approval.id}`, { headers: { authorization: `Bearer ${keys.ann}` } });
    expect(await decided.json()).toMatchObject({ status: 'executed', decidedByPrincipal: 'ann', note: 'looks right' });
    await annContext.close();
  });

  it('shows the call in the audit log, each row leading to its trace', async () => {
    const context = await browser.newContext({ bypassCSP: true });
    const page = await signIn(context, keys.root);
    await page.goto(`${url}/ui/audit`);
    await page.getByLabel('Tool').fill('notes.append');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/tool=notes\.append/);
    const table = await page.locator('table').textContent();
    expect(table).toMatch(/call\.pending_approval[\s\S]*ci-bot/);
    expect(table).toMatch(/approval\.approved[\s\S]*ann/);
    await check(page, 'audit');
    await page.locator('td[data-label="Trace"] a').first().click();
    await page.waitForURL(/call_id=/);
    await expect(page.getByText(/The trace of call/).isVisible()).resolves.toBe(true);
    await expect(page.locator('table').last().textContent()).resolves.toMatch(/call\.ok/);
    // and its spans, from the trace file (written in batches: reload until they are there)
    const end = Date.now() + 20_000;
    while (!(await page.getByRole('heading', { name: 'Spans' }).isVisible())) {
      if (Date.now() > end) throw new Error('no spans of the call in the trace file');
      await new Promise((r) => setTimeout(r, 500));
      await page.reload();
    }
    await expect(page.locator('table').first().textContent()).resolves.toMatch(/execute_tool notes\.append/);
    await check(page, 'trace');
    await context.close();
  });

  it('a broken manifest shows its located diagnostic, and that the last good snapshot serves', async () => {
    const context = await browser.newContext({ bypassCSP: true });
    const page = await signIn(context, keys.root);
    await page.goto(`${url}/ui/health`);
    await expect(page.locator('#reload').textContent()).resolves.toMatch(/Last reload: ok/);
    await check(page, 'health');

    const file = join(project, 'manifests', 'toolcap', 'runtime-tools.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('risk: low, reversible: full }', 'risk: catastrophic, reversible: full }'));
    const end = Date.now() + 15_000;
    while (((await (await fetch(`${url}/health`)).json()) as { status: string }).status !== 'degraded') {
      if (Date.now() > end) throw new Error('the broken edit was not reloaded');
      await new Promise((r) => setTimeout(r, 100));
    }
    await page.reload();
    const reload = await page.locator('section[aria-labelledby="reload"]').textContent();
    expect(reload).toMatch(/the last good snapshot, version 1 .* is still serving/);
    expect(reload).toMatch(/runtime-tools\.yaml:\d+:\d+.*UNKNOWN_ENUM_VALUE/s);
    expect(reload).toContain('catastrophic');
    await check(page, 'health-broken');
    // the catalog still answers from the last good snapshot
    await page.goto(`${url}/?q=reverse`);
    await expect(page.locator('tbody').textContent()).resolves.toContain('text.reverse');
    await context.close();
  });

  it('works at phone width, and every page with its assets is under 200 KB', async () => {
    // no isMobile: a mobile layout viewport widens to fit the content, which would hide a page too wide
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 390, height: 844 }, hasTouch: true });
    const page = await signIn(context, keys.root);
    for (const [name, path] of [['phone-catalog', '/'], ['phone-tool', '/ui/tools/notes.append'], ['phone-approvals', '/ui/approvals?status=executed']] as const) {
      await page.goto(`${url}${path}`);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect(overflow, `${name} scrolls sideways`).toBeLessThanOrEqual(1);
      await check(page, name);
    }
    await context.close();

    const cookie = await (async () => {
      const c = await browser.newContext();
      const p = await signIn(c, keys.root);
      const value = (await c.cookies()).find((x) => x.name === 'toolcap_session')!.value;
      await p.close();
      await c.close();
      return `toolcap_session=${value}`;
    })();
    const sizes: Record<string, number> = {};
    for (const path of ['/', '/?q=open+incidents', '/ui/tools/notes.append', '/ui/approvals?status=executed', '/ui/audit', '/ui/health']) {
      const res = await fetch(`${url}${path}`, { headers: { cookie } });
      expect(res.status, path).toBe(200);
      const html = await res.text();
      let total = Buffer.byteLength(html);
      for (const [, asset] of html.matchAll(/(?:href|src)="(\/ui\/assets\/[^"]+)"/g)) total += Buffer.byteLength(await (await fetch(`${url}${asset}`)).text());
      sizes[path] = total;
      expect(total, path).toBeLessThan(200 * 1024);
    }
    console.log(`console page sizes with assets (bytes): ${JSON.stringify(sizes)}`);
  });
});
