// Real API descriptions from ../shared/corpus/openapi (see its SOURCE.md): every
// operation becomes exactly one tool, nothing crashes, and method inference holds.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openapiDialect } from '../../src/dialects/openapi.js';
import type { ImportedDocument } from '../../src/dialects/types.js';
import { createImportContext } from '../../src/source/context.js';
import { parseSource } from '../../src/source/source.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import type { Tool } from '../../src/model/schema.js';
import { buildCatalog } from '../../src/registry/catalog.js';

const CORPUS = new URL('../../../shared/corpus/openapi/', import.meta.url).pathname;
const EXAMPLES = join(CORPUS, 'oai-examples');

const imports = new Map<string, { doc: ImportedDocument; diagnostics: Diagnostic[] }>();
/** Parse and import one corpus file with the openapi dialect (once per file). */
function load(file: string): { doc: ImportedDocument; diagnostics: Diagnostic[]; tools: Tool[] } {
  let done = imports.get(file);
  if (done === undefined) {
    const path = join(CORPUS, file);
    const parsed = parseSource(path, readFileSync(path, 'utf8'));
    if (!parsed.file) throw new Error(`${file} does not parse`);
    const context = createImportContext(parsed.file);
    done = { doc: openapiDialect.import(context), diagnostics: [...parsed.diagnostics, ...context.diagnostics] };
    imports.set(file, done);
  }
  return { ...done, tools: done.doc.tools.map((t) => t.value) };
}

/** A cycle check that visits each shared object once: linear in distinct objects, not in tree size. */
function cyclic(root: unknown, done = new WeakSet<object>()): boolean {
  const onPath = new WeakSet<object>();
  const visit = (value: unknown): boolean => {
    if (value === null || typeof value !== 'object' || done.has(value)) return false;
    if (onPath.has(value)) return true;
    onPath.add(value);
    const found = Object.values(value).some(visit);
    onPath.delete(value);
    done.add(value);
    return found;
  };
  return visit(root);
}

const countBy = (tools: readonly Tool[], key: (t: Tool) => string) =>
  tools.reduce<Record<string, number>>((acc, t) => ((acc[key(t)] = (acc[key(t)] ?? 0) + 1), acc), {});
const methodOf = (t: Tool) => String(t.providers?.[0]?.config?.['method']);

const SPECS: Array<[string, number, Record<string, number>]> = [
  ['github.api.github.com.json', 771, { GET: 403, DELETE: 125, POST: 116, PUT: 75, PATCH: 52 }],
  ['stripe.spec3.json', 417, { GET: 197, POST: 184, DELETE: 36 }],
  ['slack.web-api.swagger2.json', 174, { POST: 94, GET: 80 }],
  ['swagger-petstore3.openapi.yaml', 19, { GET: 8, POST: 6, PUT: 2, DELETE: 3 }],
];

describe.each(SPECS)('corpus %s', (file, count, methods) => {
  it(`imports ${count} operations as ${count} uniquely named tools, without errors`, () => {
    const { tools, diagnostics } = load(file);
    expect(diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    expect(tools).toHaveLength(count);
    expect(new Set(tools.map((t) => t.name)).size).toBe(count);
    expect(countBy(tools, methodOf)).toEqual(methods);
  });

  it('infers reads from GET and irreversible, high-risk writes from DELETE', () => {
    const { tools, diagnostics } = load(file);
    const tightened = new Set(diagnostics.filter((d) => d.code === 'EFFECTS_TIGHTENED').map((d) => d.message.split(' ')[1]));
    for (const tool of tools) {
      const method = methodOf(tool);
      if (method === 'GET' && tightened.has(String(tool.providers?.[0]?.config?.['path']))) {
        expect(tool.effects?.mode).toBe('write');
        expect(tool.derived).toContain('effects.mode');
      } else if (method === 'DELETE') {
        expect(tool.effects).toMatchObject({ mode: 'write', sideEffects: 'write', reversible: 'none', risk: 'high' });
        expect(tool.derived).toEqual(expect.arrayContaining(['effects.mode', 'effects.reversible', 'effects.risk']));
      } else if (method === 'GET') {
        expect(tool.effects).toEqual({ mode: 'read', sideEffects: 'read_external_service' });
        expect(tool.execution).toEqual({ idempotent: true });
      } else {
        expect(tool.effects?.mode).toBe('write');
      }
    }
  });

  it('builds acyclic schemas, each tool with an object input schema', () => {
    const acyclic = new WeakSet<object>(); // what one tool proved acyclic stays so
    for (const tool of load(file).tools) {
      expect(tool.inputSchema).toMatchObject({ type: 'object' });
      expect(cyclic(tool.inputSchema, acyclic)).toBe(false);
      expect(cyclic(tool.outputSchema, acyclic)).toBe(false);
    }
  });
});

describe('word evidence tightens a GET named after a write, never loosens', () => {
  // openapi/SOURCE.md lists Slack's GETs that write; dialog.open opens a dialog in the user's client (a write too)
  const SLACK_GET_WRITES = ['/auth.revoke', '/apps.uninstall', '/apps.permissions.request', '/files.remote.share', '/views.open', '/views.publish', '/views.push', '/views.update', '/workflows.updateStep', '/workflows.stepCompleted', '/workflows.stepFailed', '/dialog.open', '/apps.permissions.users.request'];
  const tightenedPaths = (file: string) => load(file).diagnostics.filter((d) => d.code === 'EFFECTS_TIGHTENED').map((d) => d.message.split(' ')[1]!);

  it('Slack: every GET read as a write is a known write, and most known writes are caught', () => {
    const paths = tightenedPaths('slack.web-api.swagger2.json');
    for (const p of paths) expect(SLACK_GET_WRITES).toContain(p);
    expect(paths.length).toBeGreaterThanOrEqual(9);
    const revoke = load('slack.web-api.swagger2.json').tools.find((t) => t.providers?.[0]?.config?.['path'] === '/auth.revoke');
    expect(revoke?.effects).toMatchObject({ mode: 'write', sideEffects: 'write', reversible: 'none', risk: 'high' });
    expect(revoke?.execution?.idempotent).toBeUndefined();
  });

  it.each(['github.api.github.com.json', 'stripe.spec3.json'])('%s: no GET is tightened (resource-first names such as rate-limit/get keep their read)', (file) => {
    expect(tightenedPaths(file)).toEqual([]);
  });

  it('a declared mode is never overridden by words', () => {
    const path = join(CORPUS, 'slack.web-api.swagger2.json');
    const spec = JSON.parse(readFileSync(path, 'utf8')) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    spec.paths['/auth.revoke']!['get']!['x-toolcap-effects'] = { mode: 'read' };
    const parsed = parseSource(path, JSON.stringify(spec));
    const context = createImportContext(parsed.file!);
    const tool = openapiDialect.import(context).tools.map((t) => t.value).find((t) => t.providers?.[0]?.config?.['path'] === '/auth.revoke');
    expect(tool?.effects?.mode).toBe('read');
    const tightened = context.diagnostics.filter((d) => d.code === 'EFFECTS_TIGHTENED').map((d) => d.message.split(' ')[1]);
    expect(tightened).not.toContain('/auth.revoke');
    expect(tightened).toContain('/apps.uninstall');
  });
});

describe('corpus specifics', () => {
  const find = (file: string, name: string) => {
    const tool = load(file).tools.find((t) => t.name === name);
    if (!tool) throw new Error(`no ${name} in ${file}`);
    return tool;
  };

  it.each<[string, string, Partial<Tool>]>([
    ['github.api.github.com.json', 'repos.get_content', {
      id: 'repos/get-content', title: 'Get repository content', tags: ['repos'], version: '1.1.4',
      inputSchema: { type: 'object', required: ['owner', 'repo', 'path'] },
      providers: [{ name: 'http', priority: 0, config: { server: 'https://api.github.com', method: 'GET', path: '/repos/{owner}/{repo}/contents/{path}' } }],
    }],
    ['github.api.github.com.json', 'pulls.merge', { effects: { mode: 'write', sideEffects: 'write' }, extensions: { openapi: { 'x-github': { triggersNotification: true } } } }],
    ['stripe.spec3.json', 'post_customers', {
      id: 'PostCustomers', auth: { required: true, type: 'basic' },
      providers: [{ name: 'http', priority: 0, config: { server: 'https://api.stripe.com/', method: 'POST', path: '/v1/customers', contentType: 'application/x-www-form-urlencoded' } }],
    }],
    ['slack.web-api.swagger2.json', 'chat_post_message', {
      auth: { required: true, type: 'oauth2', scopes: ['chat:write:user', 'chat:write:bot'], oauth: [{ name: 'slackAuth', tokenUrl: 'https://slack.com/api/oauth.access' }] },
      providers: [{ name: 'http', priority: 0, config: { server: 'https://slack.com/api', method: 'POST', path: '/chat.postMessage', contentType: 'application/x-www-form-urlencoded' } }],
    }],
    ['swagger-petstore3.openapi.yaml', 'get_pet_by_id', {
      id: 'getPetById', auth: { required: true, type: 'api_key', envs: { PETSTORE_API_KEY: { required: true } } },
      inputSchema: { type: 'object', properties: { petId: { type: 'integer' } }, required: ['petId'] },
    }],
  ])('%s: %s', (file, name, expected) => {
    expect(find(file, name)).toMatchObject(expected);
  });

  it('does not call GitHub operations that notify people idempotent', () => {
    const notifying = load('github.api.github.com.json').tools.filter((t) => (t.extensions?.['openapi']?.['x-github'] as { triggersNotification?: boolean } | undefined)?.triggersNotification);
    expect(notifying).toHaveLength(17);
    for (const tool of notifying) {
      expect(tool.effects?.sideEffects).toBe('write');
      expect(tool.execution?.idempotent).toBeUndefined();
    }
  });
});

/** The example documents (the other files of petstore-separate are fragments it refers to) and their operation counts. */
const EXAMPLE_DOCUMENTS: Array<[string, number]> = [
  ['v2.0/yaml/api-with-examples.yaml', 2],
  ['v2.0/yaml/petstore-expanded.yaml', 4],
  ['v2.0/yaml/petstore-minimal.yaml', 1],
  ['v2.0/yaml/petstore-separate/spec/swagger.yaml', 4],
  ['v2.0/yaml/petstore-simple.yaml', 4],
  ['v2.0/yaml/petstore-with-external-docs.yaml', 4],
  ['v2.0/yaml/petstore.yaml', 3],
  ['v2.0/yaml/uber.yaml', 5],
  ['v3.0/api-with-examples.yaml', 2],
  ['v3.0/callback-example.yaml', 1],
  ['v3.0/link-example.yaml', 6],
  ['v3.0/petstore-expanded.yaml', 4],
  ['v3.0/petstore.yaml', 3],
  ['v3.0/uspto.yaml', 3],
  ['v3.1/non-oauth-scopes.yaml', 1],
  ['v3.1/webhook-example.yaml', 0],
];

/** Every YAML file below a folder, relative to it. */
function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const full = join(dir, f);
    return statSync(full).isDirectory() ? yamlFiles(full).map((g) => `${f}/${g}`) : /\.ya?ml$/.test(f) ? [f] : [];
  });
}

describe('OpenAPI Initiative examples', () => {
  it('lists every example document, and only fragments besides', () => {
    const fragments = yamlFiles(EXAMPLES).filter((f) => !EXAMPLE_DOCUMENTS.some(([d]) => d === f));
    expect(fragments.sort()).toEqual(['v2.0/yaml/petstore-separate/common/Error.yaml', 'v2.0/yaml/petstore-separate/spec/NewPet.yaml', 'v2.0/yaml/petstore-separate/spec/Pet.yaml', 'v2.0/yaml/petstore-separate/spec/parameters.yaml']);
  });

  it.each(EXAMPLE_DOCUMENTS)('%s loads into a catalog without errors: %i tools', (file, count) => {
    const { catalog, diagnostics } = buildCatalog([join(EXAMPLES, file)]);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(catalog.tools).toHaveLength(count);
  });

  it('resolves petstore-separate cross-file references (as a folder layer, so ../common is inside it)', () => {
    const { catalog, diagnostics } = buildCatalog([join(EXAMPLES, 'v2.0/yaml/petstore-separate')]);
    expect(diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    const byName = new Map(catalog.tools.map((e) => [e.value.name, e.value]));
    expect([...byName.keys()].sort()).toEqual(['add_pet', 'delete_pet', 'find_pet_by_id', 'find_pets']);
    expect(byName.get('find_pets')?.inputSchema).toMatchObject({ properties: { tags: { type: 'array' }, limit: { type: 'integer', format: 'int32' } } });
    expect(byName.get('find_pets')?.outputSchema).toMatchObject({ type: 'array', items: { type: 'object', required: ['id', 'name'] } });
    expect(byName.get('add_pet')?.inputSchema).toMatchObject({ properties: { body: { type: 'object', allOf: [{ required: ['id', 'name'] }, { required: ['name'] }] } }, required: ['body'] });
  });

  it.each(['github.api.github.com.json', 'stripe.spec3.json', 'slack.web-api.swagger2.json', 'swagger-petstore3.openapi.yaml'])(
    '%s builds into a catalog with no errors and no importer crash',
    (file) => {
      const { catalog, diagnostics } = buildCatalog([join(CORPUS, file)]);
      expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(catalog.tools.length).toBe(load(file).tools.length);
    },
    60_000,
  );
});
