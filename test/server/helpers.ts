/** Shared helpers for the HTTP API tests. */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import type { Tool } from '../../src/model/schema.js';

export const BASE = 'http://toolcap.test';

/** One in-process request. */
export async function call(app: Hono, path: string, init?: RequestInit): Promise<Response> {
  return await app.fetch(new Request(`${BASE}${path}`, init));
}

/** One in-process GET, answered as JSON (status and headers kept). */
export async function getJson(app: Hono, path: string, init?: RequestInit): Promise<{ res: Response; body: any }> {
  const res = await call(app, path, init);
  const text = await res.text();
  return { res, body: text === '' ? undefined : JSON.parse(text) };
}

const made: string[] = [];
/** A fresh temp folder, removed by `cleanFolders`. */
export function folder(prefix = 'toolcap-server-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
export function cleanFolders(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A clean canonical manifest with the given tool names (read tools). */
export function manifest(names: readonly string[], note = ''): string {
  return `toolcap: 1\ntools:\n${names
    .map((n) => `  - name: ${n}\n    description: The ${n} tool${note ? `, ${note}` : ''}\n    effects: { mode: read, sideEffects: none, risk: low }\n`)
    .join('')}`;
}

/** Replace a file in one step (write aside, rename), as editors do. */
export function replace(path: string, text: string): void {
  writeFileSync(`${path}.next`, text);
  renameSync(`${path}.next`, path);
}

/** The merge key of a tool, computed here (not by the code under test). */
export function keyOfTool(tool: Tool): string {
  const personas = tool.scope?.personas ?? [];
  return personas.length > 0 ? `${tool.name}@${[...personas].sort().join(',')}` : tool.name;
}

/** Order by name, then key (plain code-unit comparison). */
export function byNameThenKey(a: Tool, b: Tool): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  const ka = keyOfTool(a);
  const kb = keyOfTool(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** Poll until `check` resolves truthy, failing after `timeoutMs` (a bound, not a timing assertion). */
export async function until<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
