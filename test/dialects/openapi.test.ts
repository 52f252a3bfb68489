import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openapiDialect } from '../../src/dialects/openapi.js';
import { nameFromPath, UniqueNames, sanitizeOperationId } from '../../src/dialects/openapi/names.js';
import { envPrefix } from '../../src/dialects/openapi/security.js';
import { detectDialect } from '../../src/dialects/lookup.js';
import type { ImportedDocument } from '../../src/dialects/types.js';
import { createImportContext } from '../../src/source/context.js';
import { parseSource } from '../../src/source/source.js';
import { buildCatalog } from '../../src/registry/catalog.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import type { Tool } from '../../src/model/schema.js';
import { createAjv, canonicalValidator } from '../../src/model/validator.js';
import { importFile } from './contract.js';

const DIR = 'test/fixtures/openapi';
const GOOD = ['petstore-30.yaml', 'tree-31.yaml', 'swagger-20.yaml', 'overrides-30.yaml', 'cross-file/api.yaml'].map((f) => `${DIR}/${f}`);

function load(path: string): { doc: ImportedDocument; diagnostics: Diagnostic[]; tool: (name: string) => Tool } {
  const { imported, diagnostics } = importFile(openapiDialect, path);
  const tool = (name: string) => {
    const found = imported.tools.find((t) => t.value.name === name);
    if (!found) throw new Error(`no tool ${name} in ${path}: ${imported.tools.map((t) => t.value.name).join(', ')}`);
    return found.value;
  };
  return { doc: imported, diagnostics, tool };
}

/** Import a document given as a value, as if it were a JSON file in the fixtures folder. */
function importValue(value: unknown): { doc: ImportedDocument; diagnostics: Diagnostic[] } {
  const parsed = parseSource(`${DIR}/inline.json`, JSON.stringify(value));
  if (!parsed.file) throw new Error('does not parse');
  const context = createImportContext(parsed.file);
  return { doc: openapiDialect.import(context), diagnostics: context.diagnostics };
}

/** True when an object graph has a cycle (a schema that would send recursive walkers round forever). */
function cyclic(value: unknown, path = new Set<object>()): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (path.has(value)) return true;
  path.add(value);
  const found = Object.values(value).some((v) => cyclic(v, path));
  path.delete(value);
  return found;
}

describe('openapi detect', () => {
  it.each<[string, unknown, number]>([
    ['3.0 with paths', { openapi: '3.0.3', paths: {} }, 0.95],
    ['3.1 with paths', { openapi: '3.1.0', paths: {} }, 0.95],
    ['3.1 with webhooks only', { openapi: '3.1.0', webhooks: {} }, 0.9],
    ['2.0 with paths', { swagger: '2.0', paths: {} }, 0.95],
    ['2.0 without paths', { swagger: '2.0' }, 0],
    ['3.0 with paths not an object', { openapi: '3.0.0', paths: [] }, 0],
    ['openapi 2.0', { openapi: '2.0', paths: {} }, 0],
    ['openapi as a number', { openapi: 3, paths: {} }, 0],
    ['swagger 1.2', { swagger: '1.2', paths: {} }, 0],
    ['a toolcap manifest', { toolcap: 1, tools: [] }, 0],
    ['an array', [{ openapi: '3.0.0', paths: {} }], 0],
    ['null', null, 0],
    ['a string', 'openapi: 3.0.0', 0],
  ])('%s', (_label, value, score) => {
    expect(openapiDialect.detect(value, { path: 'x.json' })).toBe(score);
  });

  it.each(GOOD)('detects %s as openapi among all dialects', (path) => {
    expect(detectDialect(importFile(openapiDialect, path).value, { path })?.dialect.id).toBe('openapi');
  });
});

describe('openapi names', () => {
  it.each([
    ['repos/get-content', 'repos.get_content'],
    ['getPetById', 'get_pet_by_id'],
    ['GetAccountBankAccountsId', 'get_account_bank_accounts_id'],
    ['Get3dSecureThreeDSecure', 'get3d_secure_three_d_secure'],
    ['GetHTTPStatus', 'get_http_status'],
    ['find pet by id', 'find_pet_by_id'],
    ['admin_apps_approve', 'admin_apps_approve'],
    ['admin.conversations.convertToPrivate', 'admin.conversations.convert_to_private'],
    ['/leading//slashes/', 'leading.slashes'],
    ['__x__', 'x'],
  ])('operationId %s -> %s', (id, name) => {
    expect(sanitizeOperationId(id)).toBe(name);
  });

  it.each(['', '!!!', '/', '.-.'])('operationId %j gives no name', (id) => {
    expect(sanitizeOperationId(id)).toBeUndefined();
  });

  it.each([
    ['get', '/pets/{petId}', 'get_pets_petid'],
    ['delete', '/', 'delete'],
    ['post', '/admin.apps.approve', 'post_admin.apps.approve'],
    ['put', '/a-b/{c_d}/e', 'put_a_b_c_d_e'],
  ])('%s %s -> %s', (method, path, name) => {
    expect(nameFromPath(method, path)).toBe(name);
  });

  it('hands out _2, _3 on collisions', () => {
    const names = new UniqueNames();
    expect(['a', 'a', 'a_2', 'a'].map((n) => names.claim(n))).toEqual([
      { name: 'a', renamed: false },
      { name: 'a_2', renamed: true },
      { name: 'a_2_2', renamed: true },
      { name: 'a_3', renamed: true },
    ]);
  });

  it.each<[string | undefined, string | undefined, string]>([
    ['https://api.github.com', 'GitHub v3 REST API', 'GITHUB'],
    ['https://api.stripe.com/', 'Stripe API', 'STRIPE'],
    ['https://slack.com/api', 'Slack Web API', 'SLACK'],
    ['/api/v3', 'Swagger Petstore - OpenAPI 3.0', 'PETSTORE'],
    ['https://api.example.com', undefined, 'EXAMPLE'],
    [undefined, 'The REST API', 'OPENAPI'],
  ])('env prefix of %s / %s is %s', (server, title, prefix) => {
    expect(envPrefix(server, title)).toBe(prefix);
  });
});

describe('openapi import: fixtures', () => {
  it.each(GOOD)('%s imports without errors, into entries the canonical schema accepts', (path) => {
    const { doc, diagnostics } = load(path);
    expect(diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    expect(doc.tools.length).toBeGreaterThan(0);
    const validate = canonicalValidator();
    validate({ toolcap: 1, tools: JSON.parse(JSON.stringify(doc.tools.map((t) => t.value))) as unknown });
    expect(validate.errors ?? []).toEqual([]);
  });

  it.each(GOOD)('%s: every schema is acyclic and compiles, $refs into $defs included', (path) => {
    const ajv = createAjv();
    for (const { value } of load(path).doc.tools) {
      for (const schema of [value.inputSchema, value.outputSchema]) {
        if (schema === undefined) continue;
        expect(cyclic(schema)).toBe(false);
        expect(() => ajv.compile(schema as object)).not.toThrow();
      }
    }
  });

  it.each<[string, string, Partial<Tool>]>([
    ['petstore-30.yaml', 'list_pets', {
      id: 'listPets', title: 'List pets', description: 'List pets', version: '2.1.0', tags: ['pets'],
      inputSchema: { type: 'object', properties: { limit: { type: ['integer', 'null'], maximum: 100, description: 'Page size.' }, 'X-Request-Id': { type: 'string' } } },
      outputSchema: { type: 'array' },
      providers: [{ name: 'http', priority: 0, config: { server: 'https://eu.petstore.example.com/v1', method: 'GET', path: '/pets', parameters: { limit: { in: 'query', name: 'limit' }, 'X-Request-Id': { in: 'header', name: 'X-Request-Id' } } } }],
    }],
    ['petstore-30.yaml', 'pets.create_pet', {
      id: 'pets/create-pet', title: 'Create a pet', description: 'Adds a pet to the store.',
      inputSchema: { type: 'object', properties: { body: { type: 'object', required: ['name'] } }, required: ['body'] },
      providers: [{ name: 'http', priority: 0, config: { method: 'POST', path: '/pets', contentType: 'application/json' } }],
    }],
    ['petstore-30.yaml', 'get_pets_petid', {
      title: 'Get one pet',
      inputSchema: { type: 'object', properties: { petId: { type: 'integer', exclusiveMinimum: 0, description: "The pet's id." } }, required: ['petId'] },
      outputSchema: { allOf: [{ type: 'object', required: ['name'] }, { type: 'object', required: ['id'] }] },
    }],
    ['petstore-30.yaml', 'replace_pet', {
      inputSchema: { type: 'object', properties: { petId: { type: 'integer' }, body: { description: 'The pet to store.' } }, required: ['petId'] },
      outputSchema: { allOf: [{ type: 'object' }, { type: 'object' }] },
    }],
    ['petstore-30.yaml', 'delete_pet', { inputSchema: { type: 'object', properties: { petId: { type: 'string', description: 'Overridden at the operation.' } }, required: ['petId'] } }],
    ['petstore-30.yaml', 'get_photo', { extensions: { openapi: { deprecated: true, 'x-internal': true } }, approval: { required: true }, cost: { lane: 'low' } }],
    ['swagger-20.yaml', 'list_files', {
      inputSchema: { type: 'object', properties: { folder: { type: 'string', enum: ['inbox', 'archive'] }, size: { type: 'integer', exclusiveMinimum: 1 }, tags: { type: 'array', items: { type: 'string' } } } },
      outputSchema: { type: 'array', items: { type: 'object', properties: { size: { type: ['integer', 'null'] } } } },
      providers: [{ name: 'http', priority: 0, config: { server: 'https://files.example.com/api', method: 'GET', path: '/files' } }],
    }],
    ['swagger-20.yaml', 'create_file', { inputSchema: { type: 'object', properties: { body: { type: 'object', required: ['name'] } }, required: ['body'] } }],
    ['swagger-20.yaml', 'upload_file', {
      inputSchema: { type: 'object', properties: { folder: { type: 'string' }, body: { type: 'object', properties: { content: { type: 'string', format: 'binary' }, note: { type: 'string' } }, required: ['content'] } }, required: ['body'] },
      providers: [{ name: 'http', priority: 0, config: { contentType: 'multipart/form-data' } }],
    }],
    ['tree-31.yaml', 'get_tree', {
      outputSchema: { type: 'object', properties: { children: { items: { $ref: '#/$defs/Node' } } }, $defs: { Node: { type: 'object', properties: { children: { items: { $ref: '#/$defs/Node' } } } } } },
    }],
    ['tree-31.yaml', 'plant_forest', {
      inputSchema: { properties: { body: { description: 'The forest to plant.', type: 'object' } }, $defs: { Node: { type: 'object' } } },
      outputSchema: { minProperties: 1, allOf: [{ type: 'object' }], $defs: { Alpha: { type: 'object' } } },
    }],
    ['overrides-30.yaml', 'jobs.run', { id: 'runJob', capabilities: ['jobs.run'], alternatives: ['jobs.dry_run'], execution: { timeoutSec: 120, retryClass: 'never' } }],
    ['cross-file/api.yaml', 'find_pets', {
      inputSchema: { type: 'object', properties: { limit: { type: 'integer', format: 'int32' } } },
      outputSchema: { type: 'array', items: { allOf: [{ required: ['name'] }, { properties: { id: { type: 'integer' } } }] }, $defs: { Pet: { allOf: [{ type: 'object' }, { type: 'object' }] } } },
    }],
  ])('%s: %s', (file, name, expected) => {
    expect(load(`${DIR}/${file}`).tool(name)).toMatchObject(expected);
  });

  it('keeps no id when there is no operationId, and the operationId when it differs from the name', () => {
    const { tool } = load(`${DIR}/petstore-30.yaml`);
    expect(tool('get_pets_petid').id).toBeUndefined();
    expect(tool('pets.create_pet').id).toBe('pets/create-pet');
  });

  it('shares resolved schemas between operations instead of copying them', () => {
    const { tool } = load(`${DIR}/petstore-30.yaml`);
    const pet = tool('get_pets_petid').outputSchema;
    expect(tool('replace_pet').outputSchema).toBe(pet);
    expect(tool('pets.create_pet').outputSchema).toBe(pet);
    expect((tool('list_pets').outputSchema as { items: unknown }).items).toBe(pet);
  });

  it('reads each referenced file once', () => {
    const parsed = parseSource(`${DIR}/cross-file/api.yaml`, JSON.stringify(importFile(openapiDialect, `${DIR}/cross-file/api.yaml`).value));
    const context = createImportContext(parsed.file!);
    const reads: string[] = [];
    const read = context.readRelative.bind(context);
    context.readRelative = (path, from) => (reads.push(path), read(path, from));
    const doc = openapiDialect.import(context);
    expect(doc.tools).toHaveLength(2);
    expect(context.diagnostics).toEqual([]);
    expect(reads.sort()).toEqual(['models/definitions.yaml', 'models/owner.yaml', 'parameters.yaml']);
  });

  it.each(GOOD)('%s: the source document is left unchanged (schemas are shared with it, never edited)', (path) => {
    const parsed = parseSource(path, JSON.stringify(importFile(openapiDialect, path).value));
    const before = structuredClone(parsed.file!.value);
    openapiDialect.import(createImportContext(parsed.file!));
    expect(parsed.file!.value).toEqual(before);
  });

  it('has a bundle from info', () => {
    expect(load(`${DIR}/swagger-20.yaml`).doc.bundle).toEqual({ name: 'Fixture Files API', version: '1.0.0', schemaVersion: '2.0' });
  });

  it('exports nothing: the dialect is import only', () => {
    expect(openapiDialect.export({ tools: load(`${DIR}/petstore-30.yaml`).doc.tools.map((t) => t.value) })).toEqual([]);
  });
});

describe('openapi import: effects', () => {
  const READ = { mode: 'read', sideEffects: 'read_external_service' };
  const WRITE = { mode: 'write', sideEffects: 'write' };
  it.each<[string, string, object, object | undefined, string[]]>([
    ['petstore-30.yaml', 'list_pets', READ, { idempotent: true }, ['effects.mode', 'effects.sideEffects', 'execution.idempotent']],
    ['petstore-30.yaml', 'pets.create_pet', WRITE, undefined, ['effects.mode', 'effects.sideEffects']],
    ['petstore-30.yaml', 'replace_pet', WRITE, { idempotent: true }, ['effects.mode', 'effects.sideEffects', 'execution.idempotent']],
    ['petstore-30.yaml', 'delete_pet', { ...WRITE, reversible: 'none', risk: 'high' }, undefined, ['effects.mode', 'effects.sideEffects', 'effects.reversible', 'effects.risk']],
    ['petstore-30.yaml', 'notify_owner', WRITE, undefined, ['effects.mode', 'effects.sideEffects']],
    ['petstore-30.yaml', 'get_photo', { mode: 'read', sideEffects: 'network' }, { idempotent: true }, ['execution.idempotent']],
    ['petstore-30.yaml', 'render_photo', READ, { idempotent: true }, ['effects.sideEffects', 'execution.idempotent']],
    ['overrides-30.yaml', 'jobs.run', { mode: 'write', sideEffects: 'system' }, { timeoutSec: 120, retryClass: 'never' }, ['effects.mode']],
    ['overrides-30.yaml', 'cancel_job', { ...WRITE, reversible: 'partial', rollbackHint: 'restart_the_job', risk: 'high' }, undefined, ['effects.mode', 'effects.sideEffects', 'effects.risk']],
  ])('%s: %s', (file, name, effects, execution, derived) => {
    const tool = load(`${DIR}/${file}`).tool(name);
    expect(tool.effects).toEqual(effects);
    expect(tool.execution).toEqual(execution);
    expect((tool.derived ?? []).filter((p) => !p.startsWith('auth.'))).toEqual(derived);
  });

  it('a notifying GET becomes mixed, writes, and is not called idempotent', () => {
    const { doc } = importValue({ openapi: '3.0.0', paths: { '/ping': { get: { 'x-github': { triggersNotification: true }, responses: {} } } } });
    expect(doc.tools[0]?.value).toMatchObject({ name: 'get_ping', effects: { mode: 'mixed', sideEffects: 'write' }, derived: ['effects.mode', 'effects.sideEffects'] });
    expect(doc.tools[0]?.value.execution).toBeUndefined();
  });
});

describe('openapi import: auth', () => {
  it.each<[string, string, object, boolean]>([
    ['petstore-30.yaml', 'list_pets', { required: true, type: 'api_key', envs: { PETSTORE_API_KEY: { required: true } }, docs: 'Get a key at https://petstore.example.com/keys.' }, true],
    ['petstore-30.yaml', 'pets.create_pet', { required: true, type: 'oauth2', scopes: ['write:pets', 'read:pets'], oauth: [{ name: 'petstore_auth', authorizationUrl: 'https://petstore.example.com/oauth/authorize', tokenUrl: 'https://petstore.example.com/oauth/token', scopes: ['write:pets', 'read:pets'] }] }, false],
    ['petstore-30.yaml', 'get_pets_petid', { required: false, type: 'none' }, false],
    ['tree-31.yaml', 'get_tree', { required: false, type: 'bearer', scopes: ['read:trees', 'public'], envs: { TREES_BEARER_AUTH: { required: false } } }, true],
    ['tree-31.yaml', 'plant_forest', { required: true, type: 'bearer', envs: { TREES_BEARER_AUTH: { required: true } } }, true],
    ['swagger-20.yaml', 'list_files', { required: true, type: 'basic' }, false],
    ['swagger-20.yaml', 'create_file', { required: true, type: 'oauth2', scopes: ['files:write'], oauth: [{ name: 'oauth', authorizationUrl: 'https://files.example.com/oauth/authorize', tokenUrl: 'https://files.example.com/oauth/token' }] }, false],
  ])('%s: %s', (file, name, auth, derivedEnvs) => {
    const tool = load(`${DIR}/${file}`).tool(name);
    expect(tool.auth).toMatchObject(auth);
    expect(tool.derived?.includes('auth.envs') ?? false).toBe(derivedEnvs);
  });

  it('leaves auth out when the document says nothing about security', () => {
    expect(load(`${DIR}/cross-file/api.yaml`).tool('find_pets').auth).toBeUndefined();
  });
});

describe('openapi import: diagnostics', () => {
  const broken = load(`${DIR}/broken/broken.yaml`);
  it.each<[string, string, string, number]>([
    ['TYPE_MISMATCH', 'error', '/info/version', 4],
    ['TYPE_MISMATCH', 'error', '/paths/~1a/get/summary', 9],
    ['REF_NOT_FOUND', 'error', '/paths/~1a/get/parameters/0/$ref', 11],
    ['UNKNOWN_ENUM_VALUE', 'error', '/paths/~1a/get/parameters/1/in', 13],
    ['MISSING_FIELD', 'error', '/paths/~1a/get/parameters/2', 15],
    ['TYPE_MISMATCH', 'error', '/paths/~1a/get/parameters/3', 17],
    ['REF_NOT_FOUND', 'error', '/paths/~1a/get/responses/200/content/application~1json/schema/$ref', 23],
    ['DUPLICATE_TOOL', 'warning', '/paths/~1a/post/operationId', 25],
    ['TYPE_MISMATCH', 'error', '/paths/~1a/post/tags', 26],
    ['REF_NOT_FOUND', 'error', '/paths/~1a/post/security/0/ghost', 28],
    ['REF_NOT_FOUND', 'error', '/paths/~1a/post/requestBody/content/application~1json/schema/$ref', 32],
    ['UNKNOWN_ENUM_VALUE', 'error', '/paths/~1a/post/x-toolcap-effects/mode', 34],
    ['UNKNOWN_FIELD', 'warning', '/paths/~1a/post/x-toolcap-effects/mood', 36],
    ['UNKNOWN_FIELD', 'warning', '/paths/~1a/post/x-toolcap-bogus', 37],
    ['TYPE_MISMATCH', 'error', '/paths/~1a/put', 40],
    ['TYPE_MISMATCH', 'error', '/paths/~1b', 41],
    ['DUPLICATE_TOOL', 'warning', '/paths/~1c/delete/operationId', 44],
    ['TYPE_MISMATCH', 'error', '/paths/~1c/delete/parameters', 45],
    ['TYPE_MISMATCH', 'error', '/paths/~1c/delete/responses', 46],
    ['REF_NOT_FOUND', 'error', '/paths/~1d/post/requestBody/content/application~1json/schema/$ref', 61],
    ['INVALID_VALUE', 'error', '/components/schemas/SelfA', 65],
  ])('%s (%s) at %s, line %i', (code, severity, pointer, line) => {
    expect(broken.diagnostics).toContainEqual(expect.objectContaining({ code, severity, pointer, line }));
  });

  it('reports nothing else', () => {
    expect(broken.diagnostics).toHaveLength(21);
  });

  it('still imports every operation it can, with unique names', () => {
    expect(broken.doc.tools.map((t) => t.value.name)).toEqual(['get_a', 'get_a_2', 'get_a_3', 'loop', 'remote']);
    expect(broken.tool('get_a_2').effects).toEqual({ risk: 'high', mode: 'write', sideEffects: 'write' });
  });

  it.each<[string, unknown, string[]]>([
    ['not an object', ['openapi'], ['TYPE_MISMATCH']],
    ['an extension among the paths', { openapi: '3.0.0', paths: { 'x-note': 5, '/a': { 'x-note': 5, get: { responses: { 'x-note': 5 } } } } }, []],
    ['paths is an array', { openapi: '3.0.0', paths: [] }, ['TYPE_MISMATCH']],
    ['unknown version', { openapi: '4.0.0', paths: {} }, ['UNKNOWN_SCHEMA_VERSION']],
    ['$ref is not a string', { openapi: '3.0.0', paths: { '/a': { get: { parameters: [{ $ref: 5 }] } } } }, ['MISSING_FIELD']],
    ['parameter ref loop', { swagger: '2.0', parameters: { a: { $ref: '#/parameters/b' }, b: { $ref: '#/parameters/a' } }, paths: { '/a': { get: { parameters: [{ $ref: '#/parameters/a' }] } } } }, ['INVALID_VALUE']],
    ['path item ref to nothing', { openapi: '3.1.0', paths: { '/a': { $ref: '#/components/pathItems/x' } } }, ['REF_NOT_FOUND']],
    ['non-pointer fragment', { openapi: '3.1.0', paths: { '/a': { get: { requestBody: { content: { 'application/json': { schema: { $ref: '#anchor' } } } } } } } }, ['REF_NOT_FOUND']],
    ['schema is a number', { openapi: '3.0.0', paths: { '/a': { get: { parameters: [{ name: 'x', in: 'query', schema: 5 }] } } } }, ['TYPE_MISMATCH']],
    ['requestBody is a string', { openapi: '3.0.0', paths: { '/a': { post: { requestBody: 'x' } } } }, ['TYPE_MISMATCH']],
    ['requestBody without content', { openapi: '3.0.0', paths: { '/a': { post: { requestBody: {} } } } }, ['MISSING_FIELD']],
    ['security is an object', { openapi: '3.0.0', security: {}, paths: { '/a': { get: {} } } }, ['TYPE_MISMATCH']],
    ['x-toolcap-execution of the wrong type', { openapi: '3.0.0', paths: { '/a': { get: { 'x-toolcap-execution': { timeoutSec: 'soon' } } } } }, ['TYPE_MISMATCH']],
    ['body parameter in 3.0', { openapi: '3.0.0', paths: { '/a': { post: { parameters: [{ name: 'b', in: 'body' }] } } } }, ['UNKNOWN_ENUM_VALUE']],
  ])('%s: reported, not thrown', (_label, value, codes) => {
    const { diagnostics } = importValue(value);
    expect(diagnostics.map((d) => d.code)).toEqual(codes);
  });
});

describe('openapi import: parameter names that are Object.prototype members', () => {
  // A parameter's name becomes a key of the tool's input properties. A formData parameter named "__proto__" set the
  // prototype of the body's properties (the field was lost, and its keywords showed up as bogus properties in a
  // schema error), and a parameter named "constructor" or "toString" was renamed query_constructor as if taken.
  const swagger = (parameters: unknown[]) => ({
    swagger: '2.0',
    info: { title: 't', version: '1' },
    paths: { '/up': { post: { operationId: 'upload', consumes: ['multipart/form-data'], parameters, responses: { 200: { description: 'ok' } } } } },
  });
  const input = (doc: ImportedDocument) => doc.tools[0]!.value.inputSchema as { properties: Record<string, { properties?: object; required?: string[] }>; required?: string[] };

  it.each<[string, unknown[], string[], string[]]>([
    ['a formData parameter', [{ name: '__proto__', in: 'formData', type: 'string', required: true }, { name: 'file', in: 'formData', type: 'file' }], ['body'], ['file']],
    ['a query parameter', [{ name: '__proto__', in: 'query', type: 'string', required: true }, { name: 'q', in: 'query', type: 'string' }], ['q'], []],
  ])('"__proto__" as %s: UNSAFE_KEY at its name, skipped, nothing else changed', (_label, parameters, properties, bodyProperties) => {
    const { doc, diagnostics } = importValue(swagger(parameters));
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'UNSAFE_KEY', severity: 'warning', pointer: '/paths/~1up/post/parameters/0/name' })]);
    const schema = input(doc);
    expect(Object.keys(schema.properties)).toEqual(properties);
    expect(Object.getPrototypeOf(schema.properties)).toBe(Object.prototype);
    if (bodyProperties.length > 0) {
      const body = schema.properties['body']!;
      expect(Object.keys(body.properties!)).toEqual(bodyProperties);
      expect(Object.getPrototypeOf(body.properties)).toBe(Object.prototype);
      expect(body.required).toBeUndefined();
    }
    expect(schema.required ?? []).not.toContain('__proto__');
  });

  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf'])('a query parameter named %s keeps its name', (name) => {
    const { doc, diagnostics } = importValue(swagger([{ name, in: 'query', type: 'string', required: true }]));
    expect(diagnostics).toEqual([]);
    expect(Object.keys(input(doc).properties)).toEqual([name]);
    expect(input(doc).required).toEqual([name]);
  });

  it('a formData "__proto__" leaves a catalog without a bogus schema error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolcap-openapi-proto-'));
    try {
      const file = join(dir, 'api.json');
      writeFileSync(file, JSON.stringify(swagger([{ name: '__proto__', in: 'formData', type: 'string' }, { name: 'file', in: 'formData', type: 'file' }])));
      const result = buildCatalog([file]);
      expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(result.diagnostics.map((d) => d.code)).toContain('UNSAFE_KEY');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('openapi in a catalog', () => {
  it('places findings on the x-toolcap line through the field map', () => {
    const { diagnostics } = buildCatalog([`${DIR}/overrides-30.yaml`]);
    expect(diagnostics).toContainEqual(expect.objectContaining({ code: 'SYSTEM_WITHOUT_APPROVAL', pointer: '/paths/~1jobs/post/x-toolcap-effects/sideEffects', line: 13 }));
    expect(diagnostics).toContainEqual(expect.objectContaining({ code: 'CONTRADICTORY_CLAIM', pointer: '/paths/~1jobs/get/x-toolcap-effects/sideEffects', line: 25 }));
  });

  // overrides-30.yaml contradicts itself on purpose (above)
  it.each(GOOD.filter((p) => !p.includes('overrides')))('%s loads with no errors, each operation a completed tool', (path) => {
    const { catalog, diagnostics } = buildCatalog([path]);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(catalog.tools.length).toBe(load(path).doc.tools.length);
    for (const { value } of catalog.tools) expect(value.effects?.reversible).toBeDefined();
  });
});
