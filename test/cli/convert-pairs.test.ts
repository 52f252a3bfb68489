/**
 * `toolcap convert` over every pair of formats: a conversion either writes
 * output that the target dialect validates, or refuses (exit 1, nothing
 * written) naming what is missing; supplying the values (--set, --fill,
 * --persona) then gives output that validates. Sources: the bundled
 * examples and real corpus files.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIALECT_IDS, type DialectId } from '../../src/dialects/types.js';
import { cli } from './helpers.js';

const SOURCES: ReadonlyArray<[string, string]> = [
  ['atlas', 'examples/manifests/atlas'],
  ['capability', 'examples/manifests/capability'],
  ['pylot', 'examples/manifests/pylot'],
  ['shinkai', 'examples/manifests/shinkai'],
  ['toolcap', 'examples/manifests/toolcap'],
  ['xena', 'examples/manifests/xena'],
  ['mcp (corpus)', '../shared/corpus/mcp-reference-servers/filesystem.json'],
  ['openapi (corpus)', '../shared/corpus/openapi/swagger-petstore3.openapi.yaml'],
];

/** What each target needs that a source may lack, and the flags that supply it. */
const SUPPLY: Partial<Record<DialectId, { missing: RegExp; flags: string[] }>> = {
  pylot: { missing: /missing (.*, )?module/, flags: ['--set', 'module=tools.generic'] },
  xena: { missing: /missing (.*, )?surface/, flags: ['--fill', 'test/fixtures/convert/xena-fill.yaml'] },
};

type Expected = 'ok' | 'missing' | 'personas' | 'nothing';

/**
 * The expected outcome. ATLAS has personas, with one tool in two personas'
 * versions: only ATLAS and the canonical format can hold both. OpenAPI is
 * import only. Pylot needs `module` and Xena a surface (and more) that
 * only their own sources have.
 */
function expected(source: string, target: DialectId): Expected {
  if (target === 'openapi') return 'nothing';
  if (source === 'atlas' && target !== 'atlas' && target !== 'toolcap') return 'personas';
  if ((target === 'pylot' || target === 'xena') && source !== target) return 'missing';
  return 'ok';
}

const root = mkdtempSync(join(tmpdir(), 'toolcap-convert-pairs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/**
 * Validate what convert wrote, as a user would: `toolcap validate <out>
 * --dialect <target>`. Capability output holds JSON Schema files its
 * manifests refer to, which a forced dialect would read as manifests: it is
 * validated with detection, every tool detected as capability.
 */
async function validates(out: string, target: DialectId): Promise<void> {
  const forced = target === 'capability' ? [] : ['--dialect', target];
  const checked = await cli('validate', out, '--json', ...forced);
  expect(checked.code, checked.stdout).toBe(0);
  const inspected = await cli('inspect', out, '--json', ...forced);
  const provenance = (JSON.parse(inspected.stdout) as { provenance: Record<string, Array<{ dialect: string }>> }).provenance;
  expect(new Set(Object.values(provenance).flatMap((chain) => chain.map((o) => o.dialect)))).toEqual(new Set([target]));
}

const CASES = SOURCES.flatMap(([label, path]) => DIALECT_IDS.map((target) => [label, target, expected(label, target), path] as const));

describe('convert between every pair of formats', () => {
  it.each(CASES)('%s -> %s: %s', async (label, target, outcome, path) => {
    const out = join(root, `out-${n++}`);
    const result = await cli('convert', path, '--to', target, '--out', out);
    if (outcome === 'ok') {
      expect(result.code, result.stderr).toBe(0);
      await validates(out, target);
      return;
    }
    expect(result.code, result.stderr).toBe(1);
    expect(existsSync(out)).toBe(false);
    if (outcome === 'nothing') {
      expect(result.stderr).toMatch(/nothing to write/);
      return;
    }
    expect(result.stderr).toMatch(new RegExp(`not converted: the ${target} output would fail ${target} validation`));
    const supply = SUPPLY[target];
    if (outcome === 'missing') expect(result.stderr).toMatch(supply!.missing);
    if (outcome === 'personas') expect(result.stderr).toMatch(/--persona <name>/);
    // with the missing values supplied, the same conversion succeeds and validates
    const flags = [...(outcome === 'personas' ? ['--persona', 'Atlas'] : []), ...(supply && label !== target ? supply.flags : [])];
    const again = await cli('convert', path, '--to', target, '--out', out, ...flags);
    expect(again.code, again.stderr).toBe(0);
    await validates(out, target);
    expect(label).not.toBe('');
  });
});

describe('convert --set and --fill', () => {
  it.each([
    [['--set', 'module'], /--set needs field=value/],
    [['--fill', 'no/such/file.yaml'], /cannot read the fill file/],
    [['--fill', 'test/fixtures/convert/not-a-map.yaml'], /must map entry names/],
  ])('refuses bad values %j as usage errors', async (flags, message) => {
    const result = await cli('convert', 'examples/manifests/toolcap', '--to', 'pylot', ...flags);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('fills only what is missing: a value the conversion wrote is never replaced, and an entry\'s own value beats "*"', async () => {
    const result = await cli('convert', 'examples/manifests/pylot', '--to', 'pylot', '--set', 'module=other.module');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/other\.module/);
    const out = join(root, 'own');
    const own = await cli('convert', 'examples/manifests/toolcap', '--to', 'xena', '--out', out, '--fill', 'test/fixtures/convert/xena-fill.yaml', '--set', 'riskLevel="high"');
    expect(own.code, own.stderr).toBe(0);
    expect(own.stderr).toMatch(/Filled "text\.reverse" \(config\/registry\/tools\.json#\/tools\/0\): .*surface/);
  });
});

describe('convert says when its output is valid but not detected as the target', () => {
  it('xena -> atlas: the functions.json validates as atlas and the note names it', async () => {
    const result = await cli('convert', 'examples/manifests/xena', '--to', 'atlas', '--out', join(root, 'xa'));
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/note: modules\/Tools\/tool_maps\/functions\.json is valid atlas but not recognised as atlas by detection; read it with --dialect atlas/);
  });
});

describe('exported paths never leave the output folder', () => {
  it.each([
    ['config/registry/tools.json', false],
    ['modules/Personas/Atlas/Toolbox/functions.json', false],
    ['modules/Personas/../../../escape/functions.json', true],
    ['../x.json', true],
    ['a\u0000b.json', true],
  ])('%j escapes: %s', async (path, escapes) => {
    const { exportPathEscapes } = await import('../../src/cli/convert-check.js');
    expect(exportPathEscapes(path)).toBe(escapes);
  });
});
