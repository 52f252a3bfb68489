/**
 * OAuth connections in the PostgreSQL store: the {@link OAuthTokenStore}
 * methods over the statements of oauth-tokens.ts, run through the store's
 * own error handling (`query`).
 * @module
 */
import { numbered, OAUTH_SQL, oauthValues, replaceValues, rowToOAuthToken, type NewOAuthToken, type OAuthTokenStore } from './oauth-tokens.js';

type Row = Record<string, unknown>;

const SQL = Object.fromEntries(Object.entries(OAUTH_SQL).map(([k, v]) => [k, numbered(v)])) as Record<keyof typeof OAUTH_SQL, string>;

/** The OAuth connection methods of a PostgreSQL store. */
export function postgresOAuth(query: (what: string, sql: string, params?: unknown[]) => Promise<Row[]>): OAuthTokenStore {
  return {
    async putOAuthToken(record: NewOAuthToken) {
      const rows = await query(`storing the OAuth connection ${record.tool}/${record.service}`, SQL.upsert, oauthValues(record));
      return rowToOAuthToken(rows[0]!);
    },
    async replaceOAuthToken(record: NewOAuthToken, fromRevision: number) {
      const rows = await query(`replacing the OAuth connection ${record.tool}/${record.service}`, SQL.replace, replaceValues(record, fromRevision));
      return rows[0] ? rowToOAuthToken(rows[0]) : undefined;
    },
    async getOAuthToken(tool: string, service: string) {
      const rows = await query(`reading the OAuth connection ${tool}/${service}`, SQL.get, [tool, service]);
      return rows[0] ? rowToOAuthToken(rows[0]) : undefined;
    },
    async listOAuthTokens(q: { tool?: string } = {}) {
      const rows = q.tool === undefined ? await query('listing OAuth connections', SQL.listAll) : await query('listing OAuth connections', SQL.listTool, [q.tool]);
      return rows.map(rowToOAuthToken);
    },
    async deleteOAuthToken(tool: string, service?: string) {
      const rows =
        service === undefined
          ? await query(`deleting the OAuth connections of ${tool}`, `${SQL.deleteAll} RETURNING tool`, [tool])
          : await query(`deleting the OAuth connection ${tool}/${service}`, `${SQL.deleteOne} RETURNING tool`, [tool, service]);
      return rows.length;
    },
  };
}
