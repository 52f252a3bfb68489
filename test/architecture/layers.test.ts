/**
 * The import rule of docs/architecture.md: folders of src/ are stages of the
 * flow, and imports go only toward the model. dependency-cruiser checks the
 * real tree (zero violations) and, so that the check itself can fail, a small
 * tree planted with one violation of each rule.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const rules = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as IConfiguration;

async function check(cwd: string, withTsConfig: boolean): Promise<ICruiseResult> {
  const previous = process.cwd();
  process.chdir(cwd);
  try {
    const options = { ...rules.options, ruleSet: { forbidden: rules.forbidden ?? [] }, validate: true };
    if (!withTsConfig) delete (options as { tsConfig?: unknown }).tsConfig;
    const result = await cruise(['src'], options);
    return result.output as ICruiseResult;
  } finally {
    process.chdir(previous);
  }
}

const violations = (result: ICruiseResult) => result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);

describe('the layers of src/', () => {
  it('has no import against the flow, no cycle, and nothing that imports the CLI', async () => {
    const result = await check(ROOT, true);
    expect(violations(result)).toEqual([]);
    // it really looked: every layer folder holds modules it cruised
    expect(result.summary.totalCruised).toBeGreaterThan(100);
  }, 60_000);

  const planted = mkdtempSync(join(tmpdir(), 'toolcap-layers-'));
  afterAll(() => rmSync(planted, { recursive: true, force: true }));
  const plant = (path: string, text: string) => {
    const file = join(planted, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  plant('src/model/low.ts', "import { runtime } from '../runtime/high.js';\nexport const low = runtime;\n");
  plant('src/runtime/high.ts', 'export const runtime = 1;\n');
  plant('src/query/a.ts', "import { b } from './b.js';\nexport const a = () => b;\n");
  plant('src/query/b.ts', "import { a } from './a.js';\nexport const b = () => a;\n");
  plant('src/server/app.ts', "import { main } from '../cli/main.js';\nexport const app = main;\n");
  plant('src/cli/main.ts', 'export const main = 1;\n');
  plant('src/store/fixture.ts', "import { f } from '../../test/fixture.js';\nexport const g = f;\n");
  plant('test/fixture.ts', 'export const f = 1;\n');
  plant('src/misc/odd.ts', "import { runtime } from '../runtime/high.js';\nexport const odd = runtime;\n");

  it.each([
    ['layer-order:model', 'src/model/low.ts', 'src/runtime/high.ts'],
    ['no-cycles', 'src/query/a.ts', 'src/query/b.ts'],
    ['cli-is-a-leaf', 'src/server/app.ts', 'src/cli/main.ts'],
    ['src-never-imports-tests', 'src/store/fixture.ts', 'test/fixture.ts'],
    ['unknown-folder', 'src/misc/odd.ts', 'src/runtime/high.ts'],
  ])('fails a tree that breaks %s, naming the rule', async (rule, from, to) => {
    const result = await check(planted, false);
    expect(violations(result)).toContain(`${rule}: ${from} -> ${to}`);
  });
});
