/**
 * Open the store a configuration names: the SQLite file (the default) or a
 * PostgreSQL server. Rejects with StoreUnavailableError when it cannot be
 * reached or written, and StoreVersionError when a newer toolcap wrote it.
 * @module
 */
import { openPostgresStore, type PostgresStoreOptions } from './postgres.js';
import { openSqliteStore, type SqliteStoreOptions, type SqliteSynchronous } from './sqlite.js';
import type { SqliteDriverName } from './sqlite-driver.js';
import type { KeyStore, Store } from './types.js';
import type { OAuthTokenStore } from './oauth-tokens.js';
import type { InboxStore } from './workflow-inbox.js';
import type { LearnedToolStore } from './learned-tools.js';

/** Where health, approvals and audit are kept: an SQLite file or a PostgreSQL server. */
export type StoreConfig = ({ kind: 'sqlite'; path: string; synchronous?: SqliteSynchronous; driver?: SqliteDriverName } | { kind: 'postgres'; url: string }) & {
  /** The environment variable holding the key OAuth tokens are sealed with (docs/oauth.md). @default 'TOOLCAP_SECRET_KEY' */
  secretKeyEnv?: string;
};

export interface OpenStoreOptions {
  sqlite?: SqliteStoreOptions;
  postgres?: PostgresStoreOptions;
}

/** Open the configured store; it keeps API keys ({@link KeyStore}) and OAuth connections ({@link OAuthTokenStore}) too. */
export async function openStore(config: StoreConfig, options: OpenStoreOptions = {}): Promise<Store & KeyStore & OAuthTokenStore & InboxStore & LearnedToolStore> {
  switch (config.kind) {
    case 'sqlite':
      // the config's settings (store.synchronous, store.driver) win over the caller's defaults
      return openSqliteStore(config.path, { ...options.sqlite, ...(config.synchronous !== undefined ? { synchronous: config.synchronous } : {}), ...(config.driver !== undefined ? { driver: config.driver } : {}) });
    case 'postgres':
      return openPostgresStore(config.url, options.postgres);
  }
}
