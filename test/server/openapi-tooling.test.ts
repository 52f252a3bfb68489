/**
 * The served `/openapi.json` passes the tools people point at an OpenAPI
 * document: `@redocly/cli lint` with the recommended ruleset (zero errors,
 * zero warnings, no ignore file) and `openapi-typescript`, whose output
 * types a small client that lists, searches and calls, checked by `tsc`
 * (the TypeScript compiler API, on a temp project). A body the document does
 * not allow (a misspelled field) must fail the check: the test can fail.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from '../../src/registry/registry.js';
import { createApi } from '../../src/server/app.js';
import { cleanFolders, folder, getJson } from './helpers.js';

const require = createRequire(import.meta.url);
const REDOCLY = join(require.resolve('@redocly/cli/package.json'), '..', 'bin', 'cli.js');

let registry: Registry;
let served: Record<string, any>;
let dir: string;
beforeAll(async () => {
  registry = new Registry({ paths: ['examples/manifests'] });
  await registry.start();
  const app = createApi(registry, { version: '1.0.0', mcp: async () => new Response('mcp') });
  served = (await getJson(app, '/openapi.json')).body;
  dir = folder('toolcap-openapi-');
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(served, null, 2));
});
afterAll(async () => {
  await registry.close();
  cleanFolders();
});

describe('@redocly/cli lint (recommended)', () => {
  it('finds no error and no warning in the served document', () => {
    const run = spawnSync(process.execPath, [REDOCLY, 'lint', join(dir, 'openapi.json'), '--extends', 'recommended', '--format', 'json'], {
      cwd: dir, // no redocly.yaml there: the recommended ruleset, nothing ignored
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    const report = JSON.parse(run.stdout) as { totals: { errors: number; warnings: number; ignored: number }; problems: Array<{ ruleId: string; message: string }> };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
    expect(run.status).toBe(0);
  });

  it('names every operation, the servers, the license and both credentials', () => {
    const operations = Object.values(served.paths as Record<string, Record<string, any>>).flatMap((item) => Object.values(item));
    const ids = operations.map((op) => op.operationId);
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['listTools', 'search', 'callTool', 'mcpMessage', 'mcpStream', 'mcpEndSession']));
    expect(served.servers).toHaveLength(1);
    expect(served.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect(Object.keys(served.components.securitySchemes).sort()).toEqual(['apiKey', 'oidc']);
    for (const op of operations) expect(Object.keys(op.responses).some((s) => /^4\d\d$/.test(s)), op.operationId).toBe(true);
  });
});

/** A client typed only by what openapi-typescript wrote: lists, searches, calls. */
const CLIENT = `
import type { components, paths } from './api.js';

type ToolsPage = paths['/tools']['get']['responses']['200']['content']['application/json'];
type Search = paths['/search']['get']['responses']['200']['content']['application/json'];
type CallBody = NonNullable<paths['/tools/{name}/call']['post']['requestBody']>['content']['application/json'];
type Called = paths['/tools/{name}/call']['post']['responses']['200']['content']['application/json'];
type Pending = paths['/tools/{name}/call']['post']['responses']['202']['content']['application/json'];
type Problem = components['schemas']['Problem'];

export async function listTools(base: string): Promise<string[]> {
  const page = (await (await fetch(base + '/tools?limit=50')).json()) as ToolsPage;
  // the canonical tool, typed to its fields: effects.sideEffects is the closed vocabulary
  const risky = page.tools.filter((t) => t.tool.effects?.sideEffects === 'system' || t.tool.approval?.required === true);
  return risky.map((t) => t.tool.name);
}

export async function search(base: string, q: string): Promise<string | undefined> {
  const answer = (await (await fetch(base + '/search?q=' + encodeURIComponent(q))).json()) as Search;
  const intent: 'read' | 'write' | 'unknown' = answer.intent;
  return intent === 'unknown' ? undefined : answer.candidates[0]?.name;
}

export async function callTool(base: string, name: string, body: CallBody): Promise<unknown> {
  const res = await fetch(base + '/tools/' + encodeURIComponent(name) + '/call', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  if (res.status === 202) return ((await res.json()) as Pending).approval.id;
  if (!res.ok) throw new Error(((await res.json()) as Problem).code);
  const done = (await res.json()) as Called;
  const ok: 'ok' = done.status;
  return ok === 'ok' ? done.result : undefined;
}

export const good: CallBody = { arguments: { text: 'hello', count: 2 }, persona: 'ops' };
// @ts-expect-error a misspelled field is no call body
export const bad: CallBody = { argumets: { text: 'hello' } };
// @ts-expect-error sideEffects is a closed vocabulary
export const notAnEffect: NonNullable<components['schemas']['Tool']['effects']>['sideEffects'] = 'explosive';
`;

describe('openapi-typescript', () => {
  it('writes types that check a client which lists, searches and calls', async () => {
    const types = astToString(await openapiTS(served as never));
    expect(types).not.toMatch(/operations = Record<string, never>/);
    expect(types).not.toMatch(/"application\/json": Record<string, never>/);
    const project = join(dir, 'client');
    mkdirSync(project);
    writeFileSync(join(project, 'api.ts'), types);
    writeFileSync(join(project, 'client.ts'), CLIENT);
    const program = ts.createProgram([join(project, 'client.ts')], {
      strict: true,
      noEmit: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      skipLibCheck: true,
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName.split('/').pop() ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(problems).toEqual([]);
  });
});
