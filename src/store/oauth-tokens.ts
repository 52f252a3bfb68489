/**
 * OAuth connections in the store: one row per (tool, service) holding the
 * tokens of a finished authorization-code flow. The store never sees a
 * token in the clear: `sealed` is AES-256-GCM ciphertext made by the
 * runtime (runtime/oauth/sealed-box.ts) with a key the store does not have.
 * What is kept beside it (expiry, scope, whether a refresh token exists)
 * is what `toolcap oauth status` shows without the key.
 *
 * The SQL of both back ends is here, with the migration that creates the
 * table (migrations.ts lists it), so the concern stays in one file pair
 * (this one for rows, sqlite-oauth.ts / postgres-oauth.ts for queries).
 * @module
 */
/** One stored OAuth connection. */
export interface OAuthTokenRecord {
  /** The tool the connection is for (its name). */
  tool: string;
  /** The manifest's service name (`oauth[].name`, e.g. `github`). */
  service: string;
  /** The tokens, sealed (`v1.<iv>.<ciphertext>.<tag>`, base64url); opaque to the store. */
  sealed: string;
  /** When the access token expires (ISO 8601); null when the server did not say. */
  expiresAt: string | null;
  /** The scope the server granted, space-separated; null when it did not say. */
  scope: string | null;
  /** Whether a refresh token is kept (sealed with the rest). */
  hasRefreshToken: boolean;
  createdAt: string;
  updatedAt: string;
  /** 1 at the first write, +1 at every later one: the compare-and-set of a refresh. */
  revision: number;
}

/** What a write gives; the store assigns `revision` (and keeps `createdAt` of a row it replaces). */
export type NewOAuthToken = Omit<OAuthTokenRecord, 'revision'>;

/** OAuth connections, kept by both back ends (`openStore` returns it with the Store). */
export interface OAuthTokenStore {
  /** Insert or replace the connection of (tool, service); resolves to the row as stored. */
  putOAuthToken(record: NewOAuthToken): Promise<OAuthTokenRecord>;
  /**
   * Replace it only if its revision is still `fromRevision` (a refresh that
   * another caller or instance did not beat). Resolves to the new row, or
   * undefined when the revision moved or the row is gone.
   */
  replaceOAuthToken(record: NewOAuthToken, fromRevision: number): Promise<OAuthTokenRecord | undefined>;
  getOAuthToken(tool: string, service: string): Promise<OAuthTokenRecord | undefined>;
  /** Every connection (of one tool when given), by tool then service. */
  listOAuthTokens(query?: { tool?: string }): Promise<OAuthTokenRecord[]>;
  /** Forget the connection of one service, or of every service of the tool; resolves to how many went. */
  deleteOAuthToken(tool: string, service?: string): Promise<number>;
}

/** Column names of `oauth_tokens`, in insert order (revision is set by the SQL). */
export const OAUTH_COLUMNS = ['tool', 'service', 'sealed', 'expires_at', 'scope', 'has_refresh', 'created_at', 'updated_at'] as const;

/** The column values of a record, in {@link OAUTH_COLUMNS} order. */
export function oauthValues(r: NewOAuthToken): unknown[] {
  return [r.tool, r.service, r.sealed, r.expiresAt, r.scope, r.hasRefreshToken ? 1 : 0, r.createdAt, r.updatedAt];
}

/** The record of a row of either back end. */
export function rowToOAuthToken(row: Record<string, unknown>): OAuthTokenRecord {
  const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
  return {
    tool: String(row.tool),
    service: String(row.service),
    sealed: String(row.sealed),
    expiresAt: strOrNull(row.expires_at),
    scope: strOrNull(row.scope),
    hasRefreshToken: Number(row.has_refresh) === 1,
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
    revision: Number(row.revision),
  };
}

/** The set clause both back ends' upsert and compare-and-set share (created_at is kept). */
const SET_COLUMNS = OAUTH_COLUMNS.filter((c) => c !== 'tool' && c !== 'service' && c !== 'created_at');

/** The statements, with `?` placeholders; PostgreSQL numbers them (see {@link numbered}). */
export const OAUTH_SQL = {
  upsert: `INSERT INTO oauth_tokens (${OAUTH_COLUMNS.join(', ')}, revision) VALUES (${OAUTH_COLUMNS.map(() => '?').join(', ')}, 1)
    ON CONFLICT (tool, service) DO UPDATE SET ${SET_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')}, revision = oauth_tokens.revision + 1
    RETURNING *`,
  replace: `UPDATE oauth_tokens SET ${SET_COLUMNS.map((c) => `${c} = ?`).join(', ')}, revision = revision + 1
    WHERE tool = ? AND service = ? AND revision = ? RETURNING *`,
  get: 'SELECT * FROM oauth_tokens WHERE tool = ? AND service = ?',
  listAll: 'SELECT * FROM oauth_tokens ORDER BY tool, service',
  listTool: 'SELECT * FROM oauth_tokens WHERE tool = ? ORDER BY tool, service',
  deleteOne: 'DELETE FROM oauth_tokens WHERE tool = ? AND service = ?',
  deleteAll: 'DELETE FROM oauth_tokens WHERE tool = ?',
} as const;

/** The values of a compare-and-set, in {@link OAUTH_SQL}.replace order. */
export function replaceValues(r: NewOAuthToken, fromRevision: number): unknown[] {
  const all = oauthValues(r);
  const set = SET_COLUMNS.map((c) => all[OAUTH_COLUMNS.indexOf(c)]);
  return [...set, r.tool, r.service, fromRevision];
}

/** `?` placeholders as PostgreSQL's `$1, $2, …`. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** Migration 5: the `oauth_tokens` table (a `Migration` of migrations.ts, which lists it; typed there to keep imports one way). */
export const OAUTH_MIGRATION = {
  version: 5,
  description: 'OAuth connections: sealed tokens per tool and service',
  sqlite: [
    `CREATE TABLE oauth_tokens (
      tool TEXT NOT NULL,
      service TEXT NOT NULL,
      sealed TEXT NOT NULL,
      expires_at TEXT,
      scope TEXT,
      has_refresh INTEGER NOT NULL CHECK (has_refresh IN (0, 1)),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      revision INTEGER NOT NULL,
      PRIMARY KEY (tool, service)
    )`,
  ],
  postgres: [
    `CREATE TABLE oauth_tokens (
      tool TEXT COLLATE "C" NOT NULL,
      service TEXT COLLATE "C" NOT NULL,
      sealed TEXT NOT NULL,
      expires_at TEXT COLLATE "C",
      scope TEXT,
      has_refresh INTEGER NOT NULL CHECK (has_refresh IN (0, 1)),
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL,
      revision INTEGER NOT NULL,
      PRIMARY KEY (tool, service)
    )`,
  ],
};
