/**
 * The published schema is strict for editors: every canonical object is
 * closed (`additionalProperties: false`) with `x-` keys as the open door, it
 * compiles under Ajv's strict mode without union types, and `validate` on a
 * canonical manifest turns a misspelt field into a located error with a
 * did-you-mean, while the other dialects keep unknown fields as warnings.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalJsonSchema } from '../../src/model/schema.js';
import { closestName, editDistance } from '../../src/model/suggest.js';
import { buildCatalog } from '../../src/registry/catalog.js';

const schema = canonicalJsonSchema();
const dir = mkdtempSync(join(tmpdir(), 'toolcap-strict-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every object schema in the document, with its path. */
function objects(node: unknown, path = '#'): Array<[string, Record<string, unknown>]> {
  if (node === null || typeof node !== 'object') return [];
  const here = node as Record<string, unknown>;
  const own: Array<[string, Record<string, unknown>]> = here['type'] === 'object' && here['properties'] !== undefined ? [[path, here]] : [];
  return [...own, ...Object.entries(here).flatMap(([k, v]) => objects(v, `${path}/${k}`))];
}

describe('the published schema', () => {
  it('compiles under Ajv strict mode without allowUnionTypes (ajv --strict)', () => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: false });
    expect(() => ajv.compile(JSON.parse(readFileSync('schema/toolcap.schema.json', 'utf8')) as object)).not.toThrow();
  });

  it('closes every canonical object, x- keys the one open door', () => {
    const found = objects(schema);
    expect(found.length).toBeGreaterThanOrEqual(25);
    for (const [path, object] of found) {
      expect(object['additionalProperties'], path).toBe(false);
      expect(object['patternProperties'], path).toEqual({ '^x-': {} });
    }
  });

  const validate = new Ajv2020({ strict: true, allowUnionTypes: false, allErrors: true }).compile(schema);
  it.each([
    ['a clean tool', { toolcap: 1, tools: [{ name: 'a', effects: { mode: 'read' } }] }, true],
    ['efects: at the tool', { toolcap: 1, tools: [{ name: 'a', efects: { mode: 'read' } }] }, false],
    ['approvl: at the tool', { toolcap: 1, tools: [{ name: 'a', approvl: { required: true } }] }, false],
    ['an unknown key in effects', { toolcap: 1, tools: [{ name: 'a', effects: { mood: 'calm' } }] }, false],
    ['an unknown key in a provider', { toolcap: 1, tools: [{ name: 'a', providers: [{ name: 'js', prio: 1 }] }] }, false],
    ['an unknown top-level key', { toolcap: 1, tool: [] }, false],
    ['an unknown key in an agent constraint', { toolcap: 1, agents: [{ name: 'a', constraints: { maxRisk: 'low' } }] }, false],
    ['x- keys anywhere', { toolcap: 1, 'x-team': 'ops', tools: [{ name: 'a', 'x-owner': 'me', effects: { 'x-why': 1 }, providers: [{ name: 'js', 'x-pool': 2 }] }] }, true],
    ['metadata and extensions stay open', { toolcap: 1, tools: [{ name: 'a', metadata: { anything: 1 }, extensions: { atlas: { whatever: true } } }] }, true],
    ['inputSchema may be a boolean', { toolcap: 1, tools: [{ name: 'a', inputSchema: true }] }, true],
    ['inputSchema may not be a string', { toolcap: 1, tools: [{ name: 'a', inputSchema: 'object' }] }, false],
  ])('%s -> %s', (_what, doc, ok) => {
    expect(validate(doc)).toBe(ok);
  });
});

describe('did you mean', () => {
  it.each([
    ['efects', ['effects', 'hints', 'approval'], 'effects'],
    ['approvl', ['effects', 'approval'], 'approval'],
    ['Effects', ['effects'], 'effects'],
    ['retryclas', ['retryClass', 'idempotent'], 'retryClass'],
    ['colour', ['effects', 'approval'], undefined],
    ['x', ['id'], undefined],
  ])('%s among %j -> %s', (word, names, expected) => {
    expect(closestName(word, names)).toBe(expected);
  });

  it.each([
    ['', '', 0],
    ['abc', 'abc', 0],
    ['abc', 'acb', 1],
    ['kitten', 'sitting', 3],
  ])('editDistance(%s, %s) = %i', (a, b, d) => expect(editDistance(a, b)).toBe(d));
});

describe('validate on manifests', () => {
  const load = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return buildCatalog([file]);
  };

  it.each([
    ['efects', 'toolcap: 1\ntools:\n  - name: notes.read\n    efects: { mode: read }\n', '/tools/0/efects', 4, 'effects'],
    ['approvl', 'toolcap: 1\ntools:\n  - name: notes.append\n    effects: { mode: write, rollbackHint: delete it }\n    approvl: { required: true }\n', '/tools/0/approvl', 5, 'approval'],
    ['sideEfects', 'toolcap: 1\ntools:\n  - name: notes.read\n    effects:\n      mode: read\n      sideEfects: none\n', '/tools/0/effects/sideEfects', 6, 'sideEffects'],
    ['tool', 'toolcap: 1\ntool: []\n', '/tool', 2, 'tools'],
    ['mode', 'toolcap: 1\ntools:\n  - name: notes.read\n    mode: read\n', '/tools/0/mode', 4, 'effects.mode'],
  ])('canonical: %s is a located UNKNOWN_FIELD error (%#)', (key, text, pointer, line, near) => {
    const loaded = load(`${key}.yaml`, text);
    const found = loaded.diagnostics.filter((d) => d.code === 'UNKNOWN_FIELD');
    expect(found).toEqual([expect.objectContaining({ severity: 'error', pointer, line, file: join(dir, `${key}.yaml`) })]);
    expect(found[0]!.message).toContain(`did you mean "${near}"`);
  });

  it('canonical: an x- key is no finding, and is kept', () => {
    const loaded = load('x.yaml', 'toolcap: 1\ntools:\n  - name: notes.read\n    x-owner: team-a\n    effects: { mode: read, sideEffects: none }\n');
    expect(loaded.diagnostics.filter((d) => d.code === 'UNKNOWN_FIELD')).toEqual([]);
    expect((loaded.catalog.tools[0]?.value as Record<string, unknown>)['x-owner']).toBe('team-a');
  });

  it('another dialect (MCP tools/list) keeps an unknown field as a located warning', () => {
    const loaded = load('mcp-tools.json', JSON.stringify({ tools: [{ name: 'read_note', inputSchema: { type: 'object' }, efects: 1 }] }));
    const found = loaded.diagnostics.filter((d) => d.code === 'UNKNOWN_FIELD');
    expect(found).toEqual([expect.objectContaining({ severity: 'warning', pointer: '/tools/0/efects' })]);
  });
});
