/**
 * Learned tools in the store: tool entries a workflow wrote at run time
 * (`PUT /tools/{id}`, `toolcap tools upsert`), one row per tool id, kept as
 * the text that was sent and the dialect it was sent in, so the registry
 * reads them the way it reads a manifest file (runtime/learned-tools.ts).
 * The store keeps them; it does not judge them.
 *
 * The SQL of both back ends is here, with the migration that creates the
 * table (migrations.ts lists it), as oauth-tokens.ts does.
 * @module
 */

/** One stored learned tool. */
export interface LearnedToolRecord {
  /** The tool's id (its name in the catalog), the key. */
  id: string;
  /** The dialect the entry is written in (`toolcap`, `xena`, ...). */
  dialect: string;
  /** The entry as it was sent (one tool object, JSON text). */
  body: string;
  /** The principal that wrote it last. */
  writtenBy: string;
  createdAt: string;
  updatedAt: string;
}

/** Learned tools, kept by both back ends (`openStore` returns it with the Store). */
export interface LearnedToolStore {
  /** Insert or replace the learned tool `record.id` (its `createdAt` is kept when it existed); resolves to the row as stored. */
  putLearnedTool(record: LearnedToolRecord): Promise<LearnedToolRecord>;
  /** Every learned tool, by id. */
  listLearnedTools(): Promise<LearnedToolRecord[]>;
  /** Forget one; resolves to whether it existed. */
  deleteLearnedTool(id: string): Promise<boolean>;
}

/** Column names of `learned_tools`, in insert order. */
export const LEARNED_COLUMNS = ['id', 'dialect', 'body', 'written_by', 'created_at', 'updated_at'] as const;

/** The column values of a record, in {@link LEARNED_COLUMNS} order. */
export function learnedValues(r: LearnedToolRecord): unknown[] {
  return [r.id, r.dialect, r.body, r.writtenBy, r.createdAt, r.updatedAt];
}

/** The record of a row of either back end. */
export function rowToLearnedTool(row: Record<string, unknown>): LearnedToolRecord {
  return {
    id: String(row.id),
    dialect: String(row.dialect),
    body: String(row.body),
    writtenBy: String(row.written_by),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
  };
}

/** The statements, with `?` placeholders; PostgreSQL numbers them (`numbered` of oauth-tokens.ts). */
export const LEARNED_SQL = {
  upsert: `INSERT INTO learned_tools (${LEARNED_COLUMNS.join(', ')}) VALUES (${LEARNED_COLUMNS.map(() => '?').join(', ')})
    ON CONFLICT (id) DO UPDATE SET dialect = excluded.dialect, body = excluded.body, written_by = excluded.written_by, updated_at = excluded.updated_at
    RETURNING *`,
  list: 'SELECT * FROM learned_tools ORDER BY id',
  delete: 'DELETE FROM learned_tools WHERE id = ? RETURNING id',
} as const;

/** Migration 6: the `learned_tools` table (a `Migration` of migrations.ts, which lists it). */
export const LEARNED_MIGRATION = {
  version: 7,
  description: 'learned tools: tool entries written at run time (the learned layer)',
  sqlite: [
    `CREATE TABLE learned_tools (
      id TEXT PRIMARY KEY NOT NULL,
      dialect TEXT NOT NULL,
      body TEXT NOT NULL,
      written_by TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
  ],
  postgres: [
    `CREATE TABLE learned_tools (
      id TEXT COLLATE "C" PRIMARY KEY NOT NULL,
      dialect TEXT NOT NULL,
      body TEXT NOT NULL,
      written_by TEXT NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL
    )`,
  ],
};
