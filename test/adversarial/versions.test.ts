/**
 * 8. Version fields and documents without a node: an unknown or wrong-typed
 * version (OpenAPI's `openapi`/`swagger`, Pylot's `schema_version`) in JSON
 * and YAML, written plainly, through a YAML alias key, an alias value or a
 * YAML 1.1 merge key, or missing altogether (a fragment read with --dialect), and a YAML file of
 * comments only. Each finding must carry a line: the offending node's, or
 * the document's when there is no node. (The mutation fuzzer found
 * UNKNOWN_SCHEMA_VERSION and TYPE_MISMATCH without one.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { put, removeTmp, tmp, validate } from './helpers.js';

afterAll(removeTmp);

/** 1-based line of the first occurrence of `needle` in `text`. */
function lineOf(text: string, needle: string): number {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`"${needle}" is not in the text`);
  return text.slice(0, at).split('\n').length;
}

describe('version findings and documents without a node carry a line', () => {
  // [label, dialect, file name, text, code, needle: the expected line is the one it is on]
  it.each([
    ['OpenAPI YAML, an unknown version', 'openapi', 'api.yaml', 'info:\n  title: t\n  version: "1"\nopenapi: 4.0.0\npaths: {}\n', 'UNKNOWN_SCHEMA_VERSION', 'openapi:'],
    ['OpenAPI JSON, a version of the wrong type', 'openapi', 'api.json', '{\n  "paths": {},\n  "openapi": 3\n}\n', 'UNKNOWN_SCHEMA_VERSION', '"openapi"'],
    ['OpenAPI YAML, swagger as a number', 'openapi', 'api.yaml', 'paths: {}\nswagger: 2\n', 'UNKNOWN_SCHEMA_VERSION', 'swagger:'],
    ['OpenAPI YAML, the version key an alias', 'openapi', 'api.yaml', 'x-key: &v openapi\npaths: {}\n*v : 4.0.0\n', 'UNKNOWN_SCHEMA_VERSION', '*v'],
    ['OpenAPI YAML 1.1, the version from a merge key', 'openapi', 'api.yaml', '%YAML 1.1\n---\nx-common: &c\n  openapi: 4.0.0\n<<: *c\npaths: {}\n', 'UNKNOWN_SCHEMA_VERSION', 'openapi:'],
    ['OpenAPI YAML, no version field (a fragment)', 'openapi', 'Pet.yaml', '# one schema of a larger document\nPet:\n  type: object\n', 'UNKNOWN_SCHEMA_VERSION', 'Pet:'],
    ['OpenAPI JSON, no version field (a fragment)', 'openapi', 'Pet.json', '\n{\n  "Pet": { "type": "object" }\n}\n', 'UNKNOWN_SCHEMA_VERSION', '{'],
    ['Pylot JSON, an unknown schema_version', 'pylot', 'tool_manifest.json', '{\n  "metadata": { "name": "m" },\n  "schema_version": "2.0",\n  "tools": []\n}\n', 'UNKNOWN_SCHEMA_VERSION', '"schema_version"'],
    ['Pylot JSON, schema_version a number', 'pylot', 'tool_manifest.json', '{\n  "metadata": { "name": "m" },\n  "schema_version": 1.0,\n  "tools": []\n}\n', 'TYPE_MISMATCH', '"schema_version"'],
    ['Pylot YAML, an unknown schema_version', 'pylot', 'tool_manifest.yaml', 'metadata:\n  name: m\nschema_version: "2.0"\ntools: []\n', 'UNKNOWN_SCHEMA_VERSION', 'schema_version:'],
    ['Pylot YAML, schema_version unquoted (a number)', 'pylot', 'tool_manifest.yaml', 'metadata:\n  name: m\nschema_version: 1.0\ntools: []\n', 'TYPE_MISMATCH', 'schema_version:'],
    ['Pylot YAML, the schema_version key an alias', 'pylot', 'tool_manifest.yaml', 'metadata:\n  name: m\n  note: &k schema_version\n*k : "2.0"\ntools: []\n', 'UNKNOWN_SCHEMA_VERSION', '*k'],
    ['Pylot YAML, the schema_version key an alias, the value a number', 'pylot', 'tool_manifest.yaml', 'metadata:\n  name: m\n  note: &k schema_version\n*k : 2\ntools: []\n', 'TYPE_MISMATCH', '*k'],
    ['Pylot YAML, the schema_version value an alias', 'pylot', 'tool_manifest.yaml', 'metadata:\n  name: m\n  version: &v "2.0"\nschema_version: *v\ntools: []\n', 'UNKNOWN_SCHEMA_VERSION', 'schema_version:'],
    ['Pylot YAML 1.1, schema_version from a merge key', 'pylot', 'tool_manifest.yaml', '%YAML 1.1\n---\nbase: &b\n  schema_version: 1.0\n<<: *b\nmetadata:\n  name: m\ntools: []\n', 'TYPE_MISMATCH', 'schema_version:'],
    ['Pylot YAML of comments only', 'pylot', 'tool_manifest.yaml', '# schema_version: "1.0"\n# tools: []\n', 'TYPE_MISMATCH', '#'],
    ['capability YAML of comments only', 'capability', 'search.yaml', '# The least a manifest can say: name, summary and input schema.\n', 'TYPE_MISMATCH', '#'],
  ])('%s: %s', async (_label, dialect, name, text, code, needle) => {
    const file = put(tmp(), name, text);
    const r = await validate(file, '--dialect', dialect);
    expect(r.diagnostics).toContainEqual(expect.objectContaining({ code, file, line: lineOf(text, needle) }));
    // the promise: every finding in the file is located
    for (const d of r.diagnostics.filter((x) => x.file === file)) expect(d.line, `${d.code} at ${d.pointer}`).toBeDefined();
  });
});
