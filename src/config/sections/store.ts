/**
 * The `store` section: where health, approvals and the audit log are kept,
 * an SQLite file (`{ path }`, the default) or a PostgreSQL server
 * (`{ url }`). It goes to `openStore` as a {@link StoreConfig}.
 * @module
 */
import { Type } from '@sinclair/typebox';
import { resolve } from 'node:path';
import type { StoreConfig } from '../../store/open.js';
import { SQLITE_DRIVERS, type SqliteDriverName } from '../../store/sqlite-driver-types.js';
import { PathString, type ConfigReading } from '../reading.js';

export type { StoreConfig };

/** The store file used when `store` is absent, relative to the config folder. @default '.toolcap/toolcap.db' */
export const DEFAULT_STORE_PATH = '.toolcap/toolcap.db';

/**
 * The store of a project without a `store` section: the SQLite file
 * {@link DEFAULT_STORE_PATH} in `root` (the config's folder, or the current
 * folder when there is no config). The one place that default is resolved.
 * @example defaultStoreConfig('/srv/app') // { kind: 'sqlite', path: '/srv/app/.toolcap/toolcap.db' }
 */
export function defaultStoreConfig(root: string): StoreConfig {
  return { kind: 'sqlite', path: resolve(root, DEFAULT_STORE_PATH) };
}

/** A PostgreSQL connection URL. */
const POSTGRES_PATTERN = '^postgres(ql)?://\\S+$';
const POSTGRES_URL = new RegExp(POSTGRES_PATTERN);

/** The values of `store.synchronous` (SQLite only). */
export const SQLITE_SYNCHRONOUS = ['full', 'normal'] as const;
const Synchronous = Type.Optional(
  Type.Union(SQLITE_SYNCHRONOUS.map((v) => Type.Literal(v)), {
    description:
      'SQLite only. full (default): every commit is synced, so an acknowledged call record survives a power loss. normal: commits survive a killed process but the last ones may be lost to a power cut or OS crash; a write call no longer waits for two disk syncs.',
  }),
);

/** An environment variable name. */
const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';
const SecretKeyEnv = Type.Optional(
  Type.String({ pattern: ENV_NAME_PATTERN, description: 'The environment variable holding the 32-byte key OAuth tokens are sealed with (base64 or hex). Default: TOOLCAP_SECRET_KEY.' }),
);

const Driver = Type.Optional(
  Type.Union(
    SQLITE_DRIVERS.map((d) => Type.Literal(d)),
    { description: 'The SQLite driver (docs/store.md). Default: $TOOLCAP_SQLITE_DRIVER, else node-sqlite on Node 24 and later, better-sqlite3 before.' },
  ),
);

/** `store`: `{ path }` (SQLite, with its `synchronous` setting and driver) or `{ url }` (PostgreSQL), and where the OAuth token key comes from. */
export const StoreSchema = Type.Union(
  [
    Type.Object({ path: PathString('An SQLite file, relative to the config file.'), synchronous: Synchronous, driver: Driver, secretKeyEnv: SecretKeyEnv }, { additionalProperties: false }),
    Type.Object({ url: Type.String({ pattern: POSTGRES_PATTERN, description: 'A PostgreSQL URL.' }), secretKeyEnv: SecretKeyEnv }, { additionalProperties: false }),
    Type.Object({ synchronous: Synchronous, driver: Driver, secretKeyEnv: SecretKeyEnv }, { additionalProperties: false }),
  ],
  { description: `Where health, approvals and audit are kept. Default: { path: ${DEFAULT_STORE_PATH} }.` },
);

/** Read `store` (optional): one of `path` or `url`. @default defaultStoreConfig(root) */
export function readStore(reading: ConfigReading): StoreConfig {
  const { top, report } = reading;
  const storeReader = top.object('store');
  if (!storeReader) return defaultStoreConfig(reading.root);
  const path = storeReader.has('path') ? reading.pathString(storeReader.raw('path'), storeReader.at('path'), 'store path') : undefined;
  const url = storeReader.string('url');
  const keyEnv = storeReader.string('secretKeyEnv');
  const synchronous = storeReader.enumValue('synchronous', SQLITE_SYNCHRONOUS);
  const driverName = storeReader.string('driver');
  storeReader.rest({ where: 'store' });
  let driver: SqliteDriverName | undefined;
  if (driverName !== undefined) {
    if ((SQLITE_DRIVERS as readonly string[]).includes(driverName) && url === undefined) driver = driverName as SqliteDriverName;
    else if (url !== undefined) report('INVALID_VALUE', 'store.driver picks the SQLite driver; a PostgreSQL store has none.', storeReader.at('driver'), { hint: 'Remove driver, or use path for an SQLite file.' });
    else report('INVALID_VALUE', `store.driver "${driverName}" is not an SQLite driver.`, storeReader.at('driver'), { hint: `Use ${SQLITE_DRIVERS.join(' or ')}.` });
  }
  const withKey = <T extends StoreConfig>(given: T): T => {
    let config = driver !== undefined && given.kind === 'sqlite' ? { ...given, driver } : given;
    if (synchronous !== undefined && config.kind === 'sqlite') config = { ...config, synchronous };
    if (keyEnv === undefined) return config;
    if (new RegExp(ENV_NAME_PATTERN).test(keyEnv)) return { ...config, secretKeyEnv: keyEnv };
    report('INVALID_VALUE', 'store.secretKeyEnv is not an environment variable name (the value is not shown: it may be the key itself).', storeReader.at('secretKeyEnv'), { hint: 'Name the variable, e.g. secretKeyEnv: TOOLCAP_SECRET_KEY; never the key itself.' });
    return config;
  };
  if (storeReader.has('path') && storeReader.has('url')) {
    report('INVALID_VALUE', 'The store has both "path" and "url"; it is one or the other.', storeReader.pointer, {
      hint: 'Keep path for an SQLite file, or url for a PostgreSQL server.',
    });
  } else if (url !== undefined) {
    if (synchronous !== undefined) {
      report('INVALID_VALUE', 'store.synchronous is an SQLite setting; a PostgreSQL store keeps the server\'s own durability settings.', storeReader.at('synchronous'), { hint: 'Drop synchronous, or set synchronous_commit on the PostgreSQL server.' });
    }
    if (POSTGRES_URL.test(url)) return withKey({ kind: 'postgres', url });
    report('INVALID_VALUE', 'The store url must start with postgres:// or postgresql://.', storeReader.at('url'), { hint: 'Write url: postgres://user@host:5432/toolcap.' });
  } else if (path !== undefined) return withKey({ kind: 'sqlite', path });
  return withKey(defaultStoreConfig(reading.root));
}
