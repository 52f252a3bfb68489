import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { openSqliteStore, sqlitePragmas } from '../../src/store/sqlite.js';
import { availableSqliteDrivers, openSqlite, type SqliteDriverName } from '../../src/store/sqlite-driver.js';
import { StoreUnavailableError, type Store } from '../../src/store/types.js';
import { approval, audit, call, runStoreContract, type TestDatabase } from './contract.js';
import { runDurabilityContract } from './durability-contract.js';
import { runIdentityContract } from './identity-contract.js';

const root = mkdtempSync(join(tmpdir(), 'toolcap-sqlite-'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
function tempPath(): string {
  n += 1;
  return join(root, `case-${n}`, '.toolcap', 'toolcap.db');
}

/** Run one statement on its own connection, as another program would. */
function rawExec(path: string, sql: string, driver: SqliteDriverName): void {
  const db = openSqlite(path, { driver });
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

// every driver this Node can run (Node 20: better-sqlite3; Node 22.16+ and 24: node-sqlite too) passes the same suites
const DRIVERS = availableSqliteDrivers();

for (const driver of DRIVERS) {
  const sqliteHarness = {
    async fresh(): Promise<TestDatabase> {
      const path = tempPath();
      return {
        open: () => openSqliteStore(path, { driver }),
        raw: async (sql: string) => rawExec(path, sql, driver),
        drop: async () => rmSync(join(path, '..', '..'), { recursive: true, force: true }),
      };
    },
  };
  describe(`on ${driver}`, () => {
    runStoreContract('sqlite', sqliteHarness);
    runIdentityContract('sqlite', sqliteHarness);
    runDurabilityContract('sqlite', sqliteHarness);
  });
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StoreUnavailableError);
  expect((err as StoreUnavailableError).code).toBe('STORE_UNAVAILABLE');
  return err as Error;
}

describe.each(DRIVERS)('sqlite store on %s', (driver) => {
  describe('sqlite store: the file', () => {
    it('creates the folder, and its location is the absolute file path', async () => {
      const path = tempPath();
      const store = await openSqliteStore(path, { driver });
      try {
        expect(store.kind).toBe('sqlite');
        expect(store.location).toBe(path);
        expect(existsSync(path)).toBe(true);
      } finally {
        await store.close();
      }
    });

    it('resolves a relative path against the working folder', async () => {
      const store = await openSqliteStore(join(root, 'rel', '..', 'relative.db'), { driver });
      try {
        expect(store.location).toBe(join(root, 'relative.db'));
      } finally {
        await store.close();
      }
    });

    it('opens with the shared pragma list (WAL, synchronous=FULL, busy timeout, foreign keys), leaving the file in WAL mode', async () => {
      expect(sqlitePragmas(1234)).toEqual(['journal_mode = WAL', 'synchronous = FULL', 'busy_timeout = 1234', 'foreign_keys = ON']);
      const path = tempPath();
      const store = await openSqliteStore(path, { driver });
      await store.appendAudit(audit());
      // WAL is a property of the file: another connection sees it
      const db = openSqlite(path, { driver, readonly: true });
      try {
        expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      } finally {
        db.close();
        await store.close();
      }
    });

    it('is what openStore opens for { kind: sqlite }', async () => {
      const path = tempPath();
      const store = await openStore({ kind: 'sqlite', path }, { sqlite: { driver } });
      try {
        expect(store.kind).toBe('sqlite');
        expect(store.location).toBe(path);
      } finally {
        await store.close();
      }
    });
  });

  describe('sqlite store: failures are StoreUnavailableError, never a crash', () => {
    it('refuses a folder it cannot create or write', async () => {
      let path: string;
      let restore = (): void => undefined;
      if (process.getuid?.() === 0) {
        // root writes any folder by permission bits; sysfs refuses new folders even to root
        path = '/sys/toolcap-test-not-writable/toolcap.db';
      } else {
        const dir = join(root, 'locked');
        mkdirSync(dir);
        chmodSync(dir, 0o500);
        restore = () => chmodSync(dir, 0o700);
        path = join(dir, 'sub', 'toolcap.db');
      }
      try {
        const err = await rejection(openSqliteStore(path, { driver }));
        expect(err.message).toMatch(/creating its folder/);
        expect(err.message).toMatch(/permission denied|EACCES|EPERM/i);
        expect(err.cause).toBeDefined();
      } finally {
        restore();
      }
    });

    it('refuses a folder path that runs through a file', async () => {
      const file = join(root, 'plain-file');
      writeFileSync(file, 'x');
      const err = await rejection(openSqliteStore(join(file, 'toolcap.db'), { driver }));
      expect(err.message).toMatch(/a file stands where one of its folders should be/);
    });

    it('refuses a path that is a directory', async () => {
      const dir = join(root, 'a-directory.db');
      mkdirSync(dir, { recursive: true });
      const err = await rejection(openSqliteStore(dir, { driver }));
      expect(err.message).toMatch(/is a directory/);
    });

    it('refuses a file that is not a database', async () => {
      const path = join(root, 'garbage.db');
      writeFileSync(path, Buffer.from('this is not an SQLite database, just some bytes. '.repeat(200)));
      const err = await rejection(openSqliteStore(path, { driver }));
      expect(err.message).toMatch(/is not a SQLite database/);
      expect(err.message).toMatch(/SQLITE_NOTADB/);
      expect((err.cause as { code?: string }).code).toBe('SQLITE_NOTADB');
    });

    it('refuses a write while another connection holds the lock beyond the busy timeout, then recovers', async () => {
      const path = tempPath();
      const store = await openSqliteStore(path, { busyTimeoutMs: 50, driver });
      const holder = openSqlite(path, { driver });
      holder.exec('BEGIN IMMEDIATE');
      try {
        const err = await rejection(store.appendAudit(audit()));
        expect(err.message).toMatch(/SQLITE_BUSY/);
        expect(err.message).toMatch(/locked by another connection/);
      } finally {
        holder.exec('ROLLBACK');
        holder.close();
      }
      // once the lock is gone, the store writes again
      expect((await store.appendAudit(audit())).seq).toBe(1);
      await store.close();
    });
  });

  describe('sqlite store: two instances on one file', () => {
    const stores: Store[] = [];
    afterAll(async () => {
      for (const s of stores) await s.close();
    });

    it('share approvals, audit and calls, and decide with compare-and-set', async () => {
      const path = tempPath();
      const a = await openSqliteStore(path, { driver });
      const b = await openSqliteStore(path, { driver });
      stores.push(a, b);
      const rec = approval();
      await a.createApproval(rec);
      expect(await b.getApproval(rec.id)).toEqual(rec);
      expect(await b.updateApproval(rec.id, 'pending', { status: 'approved', decidedBy: 'bob' })).toMatchObject({ status: 'approved', decidedBy: 'bob' });
      expect(await a.updateApproval(rec.id, 'pending', { status: 'denied', decidedBy: 'alice' })).toBeUndefined();
      expect((await a.getApproval(rec.id))?.decidedBy).toBe('bob');
      const first = await a.appendAudit(audit({ detail: { by: 'a' } }));
      const second = await b.appendAudit(audit({ detail: { by: 'b' } }));
      expect(second.seq).toBe(first.seq + 1);
      expect(await a.listAudit()).toEqual([first, second]);
      await b.recordCall(call({ callId: 'from-b' }));
      expect((await a.listCalls()).map((c) => c.callId)).toEqual(['from-b']);
    });

    it('interleave many compare-and-set decisions without a double win', async () => {
      const path = tempPath();
      const a = await openSqliteStore(path, { driver });
      const b = await openSqliteStore(path, { driver });
      stores.push(a, b);
      for (let i = 0; i < 50; i++) {
        const rec = approval();
        await (i % 2 ? a : b).createApproval(rec);
        const results = await Promise.all([a.updateApproval(rec.id, 'pending', { status: 'approved' }), b.updateApproval(rec.id, 'pending', { status: 'denied' })]);
        expect(results.filter((r) => r !== undefined)).toHaveLength(1);
      }
      expect(await a.listApprovals({ status: 'pending' })).toEqual([]);
    });
  });
});
