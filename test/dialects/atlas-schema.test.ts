/**
 * The shipped JSON Schema of ATLAS `functions.json`
 * (schema/atlas-functions.schema.json): generated from its source, exported
 * by the package, accepting every ATLAS `functions.json` toolcap has (the
 * examples, the test fixtures, the seed's own example, anything of that
 * name in the shared corpus) and refusing malformed ones.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { atlasFunctionsJsonSchema } from '../../src/dialects/atlas/schema.js';
import { createAjv } from '../../src/model/validator.js';

const SHIPPED = 'schema/atlas-functions.schema.json';
const validate = createAjv().compile(JSON.parse(readFileSync(SHIPPED, 'utf8')) as object);

/** Every `functions.json` below `dir` (depth-limited, symlinks not followed). */
function functionsFiles(dir: string, depth = 6): string[] {
  if (!existsSync(dir) || depth < 0) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) out.push(...functionsFiles(path, depth - 1));
    else if (name === 'functions.json') out.push(path);
  }
  return out;
}

/** The JSON example of the ATLAS seed ("## Example"), as one file would hold it. */
function seedExample(): unknown[] {
  const seeds = '/work/shared/seeds';
  const file = existsSync(seeds) ? readdirSync(seeds).find((f) => f.startsWith('000_')) : undefined;
  if (file === undefined) return [];
  const text = readFileSync(join(seeds, file), 'utf8');
  const block = /## Example\s+```json\n([\s\S]*?)```/.exec(text)?.[1];
  return block === undefined ? [] : [JSON.parse(block)];
}

describe('schema/atlas-functions.schema.json', () => {
  it('is the file generated from src/dialects/atlas/schema.ts (run `npm run schema` after changing it)', () => {
    expect(JSON.parse(readFileSync(SHIPPED, 'utf8'))).toEqual(atlasFunctionsJsonSchema());
  });

  it('is exported by the package beside the canonical schema', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { exports: Record<string, unknown>; files: string[] };
    expect(pkg.exports['./schema/atlas.json']).toBe('./schema/atlas-functions.schema.json');
    expect(pkg.exports['./schema.json']).toBe('./schema/toolcap.schema.json');
    expect(pkg.files).toContain('schema');
  });

  const files = [...functionsFiles('examples/manifests/atlas'), ...functionsFiles('test/fixtures/atlas/modules'), ...functionsFiles('/work/shared/corpus')];
  it('finds the ATLAS files it checks', () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
  });

  it.each(files)('accepts %s', (file) => {
    const ok = validate(JSON.parse(readFileSync(file, 'utf8')));
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('accepts the seed\'s own example', () => {
    const example = seedExample();
    expect(example).toHaveLength(1);
    expect(validate(example)).toBe(true);
  });

  it.each([
    ['the broken fixtures (wrong types, unknown enum, negative timeout, no name, not an array)', ...['wrong-types', 'unknown-enum', 'negative-timeout', 'missing-name', 'not-an-array'].map((n) => `test/fixtures/atlas/broken/${n}.json`)],
  ])('refuses %s', (_label, ...paths) => {
    for (const path of paths) expect(validate(JSON.parse(readFileSync(path, 'utf8'))), path).toBe(false);
  });

  it.each<[string, unknown, string]>([
    ['a side effect outside the seed\'s eight', [{ name: 't', side_effects: 'deletes_everything' }], '/0/side_effects'],
    ['a fractional timeout', [{ name: 't', default_timeout: 2.5 }], '/0/default_timeout'],
    ['an env requirement that is not an object', [{ name: 't', auth: { envs: { KEY: true } } }], '/0/auth/envs/KEY'],
    ['a provider without a name', [{ name: 't', providers: [{ priority: 0 }] }], '/0/providers/0'],
    ['an idempotency key object with a stray field', [{ name: 't', idempotency_key: { required: true, ttl: 5 } }], '/0/idempotency_key'],
    ['an entry without a name', [{ description: 'nameless' }], '/0'],
  ])('refuses %s, at the field', (_label, doc, pointer) => {
    expect(validate(doc)).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath)).toContain(pointer);
  });
});
