/**
 * The browser the console tests drive: Debian's Chromium (`apt-get install
 * chromium`) through playwright-core, found at TOOLCAP_CHROMIUM or
 * /usr/bin/chromium; axe-core injected into each page; screenshots written
 * under TOOLCAP_ARTIFACTS (default test-artifacts/console).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

/** The Chromium binary, or undefined when none is installed. */
export function chromiumPath(): string | undefined {
  const candidates = [process.env['TOOLCAP_CHROMIUM'], '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p);
  return candidates.find((p) => existsSync(p));
}

/** Where screenshots go. */
export function artifactsDir(): string {
  const dir = process.env['TOOLCAP_ARTIFACTS'] ?? join('test-artifacts', 'console');
  mkdirSync(dir, { recursive: true });
  return dir;
}

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** One axe violation, as reported. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: number;
}

/** Run axe-core on the page (WCAG 2 A and AA, best practices); every violation with its impact. */
export async function axe(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate<boolean>("'axe' in globalThis"))) await page.addScriptTag({ path: axePath });
  // a string, evaluated in the page: the test's own compiler has no DOM types
  return page.evaluate<AxeViolation[]>(`(async () => {
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
  })()`);
}

/** The serious and critical ones, which the suite allows none of. */
export const severe = (violations: readonly AxeViolation[]) => violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
