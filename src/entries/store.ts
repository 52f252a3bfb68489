/**
 * `toolcap/store`: where approvals, audit, observed health and API keys are
 * kept. One interface, two back ends: an SQLite file (the default, no set-up)
 * and PostgreSQL (shared by several instances). Importing this entry loads
 * both drivers; the main `toolcap` entry loads neither.
 * @example
 * import { openStore } from 'toolcap/store';
 * const store = await openStore({ kind: 'sqlite', path: '.toolcap/toolcap.db' });
 * await store.close();
 * @module
 */
export { openStore } from '../store/open.js';
export type { StoreConfig, OpenStoreOptions } from '../store/open.js';
export { openSqliteStore } from '../store/sqlite.js';
export { openPostgresStore } from '../store/postgres.js';
export { StoreUnavailableError, StoreVersionError } from '../store/types.js';
export type { Store, KeyStore, KeyRecord, ApprovalRecord, ApprovalStatus, AuditRecord, CallRecord } from '../store/types.js';
export type { OAuthTokenStore, OAuthTokenRecord } from '../store/oauth-tokens.js';
