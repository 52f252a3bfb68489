/**
 * Learned tools in the PostgreSQL store: the {@link LearnedToolStore}
 * methods over the statements of learned-tools.ts.
 * @module
 */
import { LEARNED_SQL, learnedValues, rowToLearnedTool, type LearnedToolRecord, type LearnedToolStore } from './learned-tools.js';
import { numbered } from './oauth-tokens.js';

type Row = Record<string, unknown>;

const SQL = Object.fromEntries(Object.entries(LEARNED_SQL).map(([k, v]) => [k, numbered(v)])) as Record<keyof typeof LEARNED_SQL, string>;

/** The learned-tool methods of a PostgreSQL store. */
export function postgresLearned(query: (what: string, sql: string, params?: unknown[]) => Promise<Row[]>): LearnedToolStore {
  return {
    async putLearnedTool(record: LearnedToolRecord) {
      const rows = await query(`storing the learned tool ${record.id}`, SQL.upsert, learnedValues(record));
      return rowToLearnedTool(rows[0]!);
    },
    async listLearnedTools() {
      return (await query('listing learned tools', SQL.list)).map(rowToLearnedTool);
    },
    async deleteLearnedTool(id: string) {
      return (await query(`deleting the learned tool ${id}`, SQL.delete, [id])).length > 0;
    },
  };
}
