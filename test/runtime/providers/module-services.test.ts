// What a module tool receives besides its arguments (configurations, the SQL handle), in a worker and inline alike.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { moduleProviderType } from '../../../src/runtime/providers/module.js';
import type { ProviderInstance } from '../../../src/runtime/providers/types.js';
import type { SqlParams, ToolSql } from '../../../src/store/tool-db-types.js';
import { contextFor } from './contract.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/providers/', import.meta.url));
const made: ProviderInstance[] = [];
afterEach(async () => {
  for (const p of made.splice(0)) await p.close?.();
});

/** A handle that records what it was asked and knows one query, `put`. */
function recordingSql(): ToolSql & { asked: Array<[string, SqlParams | undefined]> } {
  const asked: Array<[string, SqlParams | undefined]> = [];
  return {
    asked,
    async query(name, params) {
      asked.push([name, params]);
      if (name !== 'put') throw new Error(`no query named "${name}"`);
      return { rows: [{ ok: 1 }], changes: 1 };
    },
    async execute() {
      throw new Error('not allowed');
    },
  };
}

describe.each(['worker', 'inline'] as const)('module tool (%s): configurations and SQL', (isolation) => {
  it('reads ctx.configurations and runs declared queries through ctx.sql, errors included', async () => {
    const p = moduleProviderType.create({ name: 'm', config: { module: './sql-module.mjs', export: 'run', isolation } }, { name: 'sql.test' }, { env: {}, baseDir: FIXTURES });
    made.push(p);
    const sql = recordingSql();
    const result = await p.call({ key: 'k1' }, { ...contextFor(), configurations: Object.freeze({ owner: 'ada' }), sql });
    expect(result).toEqual({ owner: 'ada', frozen: true, stored: { rows: [{ ok: 1 }], changes: 1 }, refused: 'no query named "missing"' });
    expect(sql.asked).toEqual([
      ['put', { key: 'k1', owner: 'ada' }],
      ['missing', undefined],
    ]);
  });
});
