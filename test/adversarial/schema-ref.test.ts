/**
 * 7. `inputSchemaRef` (capability dialect) pointing outside the manifest
 * folder, at a missing file, at a folder, at a huge file, at a FIFO, through
 * symbolic links. Each gets REF_NOT_FOUND (or the code of the problem in the
 * referenced file) at the reference, and nothing outside the folder is read.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inspect, put, tmp, validate, removeTmp } from './helpers.js';

afterAll(removeTmp);

const LIMIT_MS = 10_000;
/** A schema whose text, if it was read, shows up in the catalog. */
const SECRET = 'ADVERSARIAL_SECRET_PROPERTY';
const secretSchema = JSON.stringify({ type: 'object', properties: { [SECRET]: { type: 'string' } } });

/**
 * root/
 *   outside/secret.json          a schema outside the manifest folder
 *   manifests/tool.yaml          the capability manifest (the layer's folder)
 *   manifests/schemas/ok.json    a schema inside it
 */
function layout(ref: string) {
  const root = tmp('toolcap-adv-ref-');
  put(root, 'outside/secret.json', secretSchema);
  const dir = join(root, 'manifests');
  put(dir, 'schemas/ok.json', JSON.stringify({ type: 'object', properties: { q: { type: 'string' } } }));
  const file = put(dir, 'tool.yaml', `name: docs.search\nsummary: Search the docs\ninputSchemaRef: ${JSON.stringify(ref)}\ncapabilities:\n  mode: read\n`);
  return { root, dir, file };
}

async function expectRefRefused(file: string, code = 'REF_NOT_FOUND') {
  const r = await validate(file);
  expect(r.code).toBe(1);
  expect(r.diagnostics).toContainEqual(expect.objectContaining({ code, severity: 'error', file, pointer: '/inputSchemaRef', line: 3 }));
  const shown = await inspect(file);
  expect(shown.stdout).not.toContain(SECRET);
  return r;
}

describe('inputSchemaRef that must not be followed', () => {
  it('a reference inside the folder is read (the control case)', async () => {
    const { file } = layout('./schemas/ok.json');
    const r = await validate(file);
    expect(r.code).toBe(0);
    const shown = await inspect(file);
    expect(shown.doc?.tools[0]?.['inputSchema']).toMatchObject({ properties: { q: { type: 'string' } } });
  });

  it.each([
    ['../../../etc/passwd'],
    ['../../../../../../../../../../etc/passwd'],
    ['/etc/passwd'],
    ['../outside/secret.json'],
    ['schemas/../../outside/secret.json'],
    ['./schemas/../../outside/./secret.json'],
  ])('%s -> REF_NOT_FOUND, nothing read', async (ref) => {
    const { file } = layout(ref);
    await expectRefRefused(file);
  });

  it('an absolute path to the secret -> REF_NOT_FOUND, nothing read', async () => {
    const { root, dir } = layout('./schemas/ok.json');
    const file = put(dir, 'abs.yaml', `name: docs.abs\nsummary: s\ninputSchemaRef: ${JSON.stringify(join(root, 'outside', 'secret.json'))}\ncapabilities:\n  mode: read\n`);
    await expectRefRefused(file);
  });

  it('a symbolic link inside the folder to a file outside -> REF_NOT_FOUND, nothing read', async () => {
    const { root, dir, file } = layout('schemas/link.json');
    symlinkSync(join(root, 'outside', 'secret.json'), join(dir, 'schemas', 'link.json'));
    await expectRefRefused(file);
  });

  it('a symbolic link inside the folder to a folder outside -> REF_NOT_FOUND, nothing read', async () => {
    const { root, dir, file } = layout('schemas/out/secret.json');
    symlinkSync(join(root, 'outside'), join(dir, 'schemas', 'out'));
    await expectRefRefused(file);
  });

  it('the folder walk of a layer does not follow such a link either', async () => {
    const { root, dir } = layout('schemas/link.json');
    symlinkSync(join(root, 'outside', 'secret.json'), join(dir, 'schemas', 'link.json'));
    const shown = await inspect(dir);
    expect(shown.stdout).not.toContain(SECRET);
  });
});

describe('inputSchemaRef to things that are not a schema file', () => {
  it('a missing file -> REF_NOT_FOUND', async () => {
    const { file } = layout('schemas/missing.json');
    await expectRefRefused(file);
  });

  it('a folder -> REF_NOT_FOUND', async () => {
    const { file } = layout('schemas');
    await expectRefRefused(file);
  });

  it('the manifest folder itself -> REF_NOT_FOUND', async () => {
    const { file } = layout('.');
    await expectRefRefused(file);
  });

  it('a 40 MB file -> REF_NOT_FOUND, without reading it', async () => {
    const { dir, file } = layout('schemas/huge.json');
    writeFileSync(join(dir, 'schemas', 'huge.json'), JSON.stringify({ type: 'object', description: 'x'.repeat(40 * 1024 * 1024) }));
    await expectRefRefused(file);
  }, LIMIT_MS * 2);

  it('a FIFO -> REF_NOT_FOUND, without blocking on it', async () => {
    const { dir, file } = layout('schemas/pipe.json');
    execFileSync('mkfifo', [join(dir, 'schemas', 'pipe.json')]);
    await expectRefRefused(file);
  });

  it('a path with a NUL byte -> REF_NOT_FOUND', async () => {
    const { file } = layout('schemas/ok.json\u0000.txt');
    await expectRefRefused(file);
  });

  it('a 10,000-character path -> REF_NOT_FOUND', async () => {
    const { file } = layout(`schemas/${'a'.repeat(10_000)}.json`);
    await expectRefRefused(file);
  });

  it('a URL -> REF_NOT_FOUND (no network, no file)', async () => {
    const { file } = layout('https://example.com/schema.json');
    await expectRefRefused(file);
  });

  it.each([
    ['an empty file', 'empty.json', '', 'FILE_EMPTY'],
    ['NUL bytes', 'nul.json', '\0'.repeat(64), 'PARSE_ERROR'],
    ['truncated JSON', 'cut.json', '{"type": "object", "properties": {', 'PARSE_ERROR'],
  ])('%s -> %s, the tool kept without a schema', async (_what, name, body, code) => {
    const { dir, file } = layout(`schemas/${name}`);
    put(dir, `schemas/${name}`, body);
    const r = await validate(file);
    expect(r.code).toBe(1);
    expect(r.tools).toBe(1);
    expect(r.diagnostics).toContainEqual(expect.objectContaining({ code, file: expect.stringMatching(new RegExp(`schemas/${name}$`)), line: expect.any(Number) }));
  });

  it('the manifest itself -> read as a (strange) schema, no loop, no crash', async () => {
    const { file } = layout('tool.yaml');
    const r = await validate(file);
    expect([0, 1]).toContain(r.code);
    expect(r.tools).toBe(1);
  });

  it('a folder layer: references may climb between its sub-folders but not above it', async () => {
    const { dir } = layout('./schemas/ok.json');
    mkdirSync(join(dir, 'team'));
    const inside = put(dir, 'team/in.yaml', 'name: team.in\nsummary: s\ninputSchemaRef: ../schemas/ok.json\ncapabilities:\n  mode: read\n');
    const above = put(dir, 'team/above.yaml', 'name: team.above\nsummary: s\ninputSchemaRef: ../../outside/secret.json\ncapabilities:\n  mode: read\n');
    const r = await validate(dir);
    expect(r.diagnostics.filter((d) => d.file === inside && d.severity === 'error')).toEqual([]);
    expect(r.diagnostics).toContainEqual(expect.objectContaining({ code: 'REF_NOT_FOUND', file: above, pointer: '/inputSchemaRef', line: 3 }));
    const shown = await inspect(dir);
    expect(shown.stdout).not.toContain(SECRET);
  });
});
