/**
 * Learned tools in the SQLite store: the {@link LearnedToolStore} methods
 * over the statements of learned-tools.ts.
 * @module
 */
import type { SqliteStatement } from './sqlite-driver.js';
import { LEARNED_SQL, learnedValues, rowToLearnedTool, type LearnedToolRecord, type LearnedToolStore } from './learned-tools.js';

type Row = Record<string, unknown>;

/** The learned-tool methods of a SQLite store. */
export function sqliteLearned(run: <T>(what: string, fn: () => T) => Promise<T>, stmt: (sql: string) => SqliteStatement): LearnedToolStore {
  return {
    putLearnedTool: (record: LearnedToolRecord) =>
      run(`storing the learned tool ${record.id}`, () => rowToLearnedTool(stmt(LEARNED_SQL.upsert).get(...learnedValues(record)) as Row)),
    listLearnedTools: () => run('listing learned tools', () => (stmt(LEARNED_SQL.list).all() as Row[]).map(rowToLearnedTool)),
    deleteLearnedTool: (id: string) => run(`deleting the learned tool ${id}`, () => stmt(LEARNED_SQL.delete).get(id) !== undefined),
  };
}
