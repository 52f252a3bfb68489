/**
 * OAuth connections in both stores (SQLite file, real PostgreSQL): one
 * contract. Rows round-trip, a refresh is compare-and-set on the revision,
 * and what is at rest is sealed: the raw row holds no token, and it opens
 * only with the key and for its own tool and service.
 */
import { openSqlite } from '../../src/store/sqlite-driver.js';
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OAuthVault } from '../../src/runtime/oauth/vault.js';
import type { NewOAuthToken, OAuthTokenStore } from '../../src/store/oauth-tokens.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { dropSchema, PG_URL, probePostgres, schemaName } from './pg-helpers.js';

const KEY = Buffer.alloc(32, 7).toString('base64');
const probe = await probePostgres();

interface Harness {
  open(): Promise<Store & OAuthTokenStore>;
  /** Every column of every oauth_tokens row, as raw text. */
  rawRows(): Promise<string>;
  cleanup(): Promise<void>;
}

const row = (tool: string, service: string, over: Partial<NewOAuthToken> = {}): NewOAuthToken => ({
  tool,
  service,
  sealed: `v1.sealed-${tool}-${service}`,
  expiresAt: '2030-01-01T00:00:00.000Z',
  scope: 'openid email',
  hasRefreshToken: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

function runOAuthStoreContract(name: string, harness: () => Promise<Harness>): void {
  describe(`${name}: OAuth connections`, () => {
    it('stores, reads, lists, replaces by revision and deletes', async () => {
      const h = await harness();
      const store = await h.open();
      try {
        const first = await store.putOAuthToken(row('gmail.send', 'gmail'));
        expect(first).toMatchObject({ tool: 'gmail.send', service: 'gmail', revision: 1, hasRefreshToken: true, scope: 'openid email' });
        await store.putOAuthToken(row('gmail.send', 'calendar', { hasRefreshToken: false, expiresAt: null, scope: null }));
        await store.putOAuthToken(row('a.tool', 'x'));
        expect(await store.getOAuthToken('gmail.send', 'calendar')).toMatchObject({ hasRefreshToken: false, expiresAt: null, scope: null, revision: 1 });
        expect((await store.listOAuthTokens()).map((r) => `${r.tool}/${r.service}`)).toEqual(['a.tool/x', 'gmail.send/calendar', 'gmail.send/gmail']);
        expect((await store.listOAuthTokens({ tool: 'gmail.send' })).length).toBe(2);

        // a reconnect replaces the row, keeps its creation time, moves the revision
        const again = await store.putOAuthToken(row('gmail.send', 'gmail', { sealed: 'v1.other', createdAt: '2027-01-01T00:00:00.000Z', updatedAt: '2027-01-01T00:00:00.000Z' }));
        expect(again).toMatchObject({ sealed: 'v1.other', revision: 2, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2027-01-01T00:00:00.000Z' });

        // compare-and-set: the first refresh from revision 2 wins, a second from 2 loses
        const won = await store.replaceOAuthToken(row('gmail.send', 'gmail', { sealed: 'v1.refreshed' }), 2);
        expect(won).toMatchObject({ sealed: 'v1.refreshed', revision: 3 });
        expect(await store.replaceOAuthToken(row('gmail.send', 'gmail', { sealed: 'v1.lost' }), 2)).toBeUndefined();
        expect((await store.getOAuthToken('gmail.send', 'gmail'))?.sealed).toBe('v1.refreshed');
        expect(await store.replaceOAuthToken(row('no.such', 'x'), 1)).toBeUndefined();

        expect(await store.deleteOAuthToken('gmail.send', 'calendar')).toBe(1);
        expect(await store.deleteOAuthToken('gmail.send', 'calendar')).toBe(0);
        expect(await store.deleteOAuthToken('gmail.send')).toBe(1);
        expect((await store.listOAuthTokens()).map((r) => r.tool)).toEqual(['a.tool']);
      } finally {
        await store.close();
        await h.cleanup();
      }
    });

    it('keeps tokens sealed at rest: the raw row holds no token, and only the key opens it', async () => {
      const h = await harness();
      const store = await h.open();
      try {
        const vault = new OAuthVault({ store, secretKey: KEY });
        const tokens = { accessToken: 'at-PLAINTEXT-access-4242', tokenType: 'bearer', refreshToken: 'rt-PLAINTEXT-refresh-4242', issuer: 'http://127.0.0.1:1', scope: 'openid' };
        await vault.save('gmail.send', 'gmail', tokens);
        const raw = await h.rawRows();
        expect(raw).toContain('gmail.send');
        expect(raw).not.toContain('PLAINTEXT');
        expect(raw).not.toContain(Buffer.from('at-PLAINTEXT').toString('base64').slice(0, 12));
        const stored = (await store.getOAuthToken('gmail.send', 'gmail'))!;
        expect(JSON.parse(vault.box().open(stored.sealed, 'gmail.send\u0000gmail'))).toEqual(tokens);
        // another key, or the row under another tool's name, does not open
        const other = new OAuthVault({ store, secretKey: Buffer.alloc(32, 9).toString('hex') });
        expect(() => other.box().open(stored.sealed, 'gmail.send\u0000gmail')).toThrow(/do not open with this key/);
        expect(() => vault.box().open(stored.sealed, 'other.tool\u0000gmail')).toThrow(/do not open/);
        // without a key nothing is stored
        const keyless = new OAuthVault({ store, secretKey: undefined });
        await expect(keyless.save('gmail.send', 'gmail', tokens)).rejects.toThrow(/TOOLCAP_SECRET_KEY is not set/);
      } finally {
        await store.close();
        await h.cleanup();
      }
    });
  });
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

runOAuthStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-oauth-store-'));
  dirs.push(dir);
  const file = join(dir, 'toolcap.db');
  return {
    open: () => openSqliteStore(file),
    async rawRows() {
      const db = openSqlite(file, { readonly: true });
      try {
        return JSON.stringify(db.prepare('SELECT * FROM oauth_tokens').all());
      } finally {
        db.close();
      }
    },
    cleanup: async () => undefined,
  };
});

describe.skipIf(!probe.reachable)('postgres (server reachable)', () => {
  runOAuthStoreContract('postgres', async () => {
    const schema = schemaName('toolcap_oauth');
    return {
      open: () => openPostgresStore(PG_URL, { schema }),
      async rawRows() {
        const client = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${schema}` });
        await client.connect();
        try {
          return JSON.stringify((await client.query('SELECT * FROM oauth_tokens')).rows);
        } finally {
          await client.end();
        }
      },
      cleanup: () => dropSchema(schema),
    };
  });
});
