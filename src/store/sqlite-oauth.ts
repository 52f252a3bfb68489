/**
 * OAuth connections in the SQLite store: the {@link OAuthTokenStore}
 * methods over the statements of oauth-tokens.ts, run through the store's
 * own error handling (`run`) and statement cache (`stmt`).
 * @module
 */
import type { SqliteStatement } from './sqlite-driver.js';
import { OAUTH_SQL, oauthValues, replaceValues, rowToOAuthToken, type NewOAuthToken, type OAuthTokenStore } from './oauth-tokens.js';

type Row = Record<string, unknown>;

/** The OAuth connection methods of a SQLite store. */
export function sqliteOAuth(run: <T>(what: string, fn: () => T) => Promise<T>, stmt: (sql: string) => SqliteStatement): OAuthTokenStore {
  return {
    putOAuthToken: (record: NewOAuthToken) =>
      run(`storing the OAuth connection ${record.tool}/${record.service}`, () => rowToOAuthToken(stmt(OAUTH_SQL.upsert).get(...oauthValues(record)) as Row)),
    replaceOAuthToken: (record: NewOAuthToken, fromRevision: number) =>
      run(`replacing the OAuth connection ${record.tool}/${record.service}`, () => {
        const row = stmt(OAUTH_SQL.replace).get(...replaceValues(record, fromRevision)) as Row | undefined;
        return row ? rowToOAuthToken(row) : undefined;
      }),
    getOAuthToken: (tool: string, service: string) =>
      run(`reading the OAuth connection ${tool}/${service}`, () => {
        const row = stmt(OAUTH_SQL.get).get(tool, service) as Row | undefined;
        return row ? rowToOAuthToken(row) : undefined;
      }),
    listOAuthTokens: (query: { tool?: string } = {}) =>
      run('listing OAuth connections', () =>
        ((query.tool === undefined ? stmt(OAUTH_SQL.listAll).all() : stmt(OAUTH_SQL.listTool).all(query.tool)) as Row[]).map(rowToOAuthToken),
      ),
    deleteOAuthToken: (tool: string, service?: string) =>
      run(`deleting the OAuth connection of ${tool}`, () =>
        (service === undefined ? stmt(OAUTH_SQL.deleteAll).run(tool) : stmt(OAUTH_SQL.deleteOne).run(tool, service)).changes,
      ),
  };
}
