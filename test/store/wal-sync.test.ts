/**
 * `synchronous: full` syncs the WAL off the event loop (src/store/wal-sync.ts):
 * a method that wrote resolves only once a sync that began after its commit
 * has ended; a method that only read waits for none; concurrent writes share
 * syncs; a failed sync is the method's StoreUnavailableError. Before, the
 * connection ran `synchronous=FULL` and fsynced inside every commit on the
 * server's only thread (the sync hook below was never called).
 */
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { availableSqliteDrivers, type SqliteDriverName } from '../../src/store/sqlite-driver.js';
import { StoreUnavailableError, type NewAuditRecord } from '../../src/store/types.js';
import { HeldDatasync, WalSync } from '../../src/store/wal-sync.js';

const root = mkdtempSync(join(tmpdir(), 'toolcap-wal-sync-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const tempPath = () => join(root, `case-${++n}`, 'toolcap.db');

const line = (kind: string): NewAuditRecord => ({ at: new Date().toISOString(), kind, tool: null, callId: null, persona: null, actor: null, detail: {} });

/** A datasync the test ends by hand: each call is kept, with its path, until released. */
function heldSyncs() {
  const calls: Array<{ path: string; release: () => void; fail: (error: Error) => void }> = [];
  let wake: (() => void) | undefined;
  const datasync = (path: string) =>
    new Promise<void>((release, fail) => {
      calls.push({ path, release, fail });
      wake?.();
    });
  /** Resolves once `count` syncs have been asked for. */
  const asked = async (count: number) => {
    while (calls.length < count) await new Promise<void>((r) => (wake = r));
  };
  return { calls, datasync, asked };
}

/** Whether `promise` has settled by the end of this turn of the event loop. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('WalSync', () => {
  it('a call made while a sync runs waits for the next one, which every such call shares', async () => {
    const held = heldSyncs();
    const wal = new WalSync('/x-wal', held.datasync);
    const first = wal.sync();
    const second = wal.sync();
    const third = wal.sync();
    expect(held.calls).toHaveLength(1);
    held.calls[0]!.release();
    await first;
    await held.asked(2);
    expect(await settled(second)).toBe(false);
    held.calls[1]!.release();
    await Promise.all([second, third]);
    expect(held.calls.map((c) => c.path)).toEqual(['/x-wal', '/x-wal']);
  });

  it('a failed sync rejects its callers, and the next call starts a new one', async () => {
    const held = heldSyncs();
    const wal = new WalSync('/x-wal', held.datasync);
    const failed = wal.sync();
    const queued = wal.sync();
    held.calls[0]!.fail(new Error('EIO'));
    await expect(failed).rejects.toThrow('EIO');
    await held.asked(2);
    held.calls[1]!.release();
    await expect(queued).resolves.toBeUndefined();
  });
});


describe('HeldDatasync', () => {
  /** An opener that keeps every handle it gave, with the inode it opened. */
  function countedOpens() {
    const opened: Array<{ path: string; handle: FileHandle; ino: number }> = [];
    const openFile = async (path: string) => {
      const handle = await open(path, 'r');
      opened.push({ path, handle, ino: (await handle.stat()).ino });
      return handle;
    };
    return { opened, openFile };
  }

  it('syncs through one handle kept open, and closes it on close(); a sync after close opens nothing it keeps', async () => {
    const file = join(mkdtempSync(join(root, 'held-')), 'f-wal');
    writeFileSync(file, 'frames');
    const { opened, openFile } = countedOpens();
    const held = new HeldDatasync(openFile);
    for (let i = 0; i < 3; i++) await held.sync(file);
    expect(opened).toHaveLength(1);
    expect(opened[0]!.handle.fd).toBeGreaterThan(-1);
    await held.close();
    expect(opened[0]!.handle.fd).toBe(-1);
    await held.sync(file);
    expect(opened).toHaveLength(1);
  });

  it.each([
    ['removed and written anew', (file: string) => (unlinkSync(file), writeFileSync(file, 'new frames'))],
    ['replaced by a rename', (file: string) => (writeFileSync(`${file}.next`, 'new frames'), renameSync(`${file}.next`, file))],
  ])('a file %s under the held handle is opened again: the sync covers the file now at the path', async (_, replace) => {
    const file = join(mkdtempSync(join(root, 'held-')), 'f-wal');
    writeFileSync(file, 'frames');
    const { opened, openFile } = countedOpens();
    const held = new HeldDatasync(openFile);
    try {
      await held.sync(file);
      replace(file);
      await held.sync(file);
      expect(opened).toHaveLength(2);
      expect(opened[0]!.handle.fd).toBe(-1);
      expect(opened[1]!.ino).toBe(statSync(file).ino);
    } finally {
      await held.close();
    }
  });

  it('a missing file is the sync’s ENOENT, and a later sync opens it once it exists', async () => {
    const file = join(mkdtempSync(join(root, 'held-')), 'f-wal');
    const held = new HeldDatasync();
    try {
      await expect(held.sync(file)).rejects.toMatchObject({ code: 'ENOENT' });
      writeFileSync(file, 'frames');
      await expect(held.sync(file)).resolves.toBeUndefined();
    } finally {
      await held.close();
    }
  });
});

/** This process's open descriptors on `path` (Linux: /proc/self/fd); a removed file's link ends in " (deleted)". */
function descriptorsOn(path: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target === path || target === `${path} (deleted)`) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

/** A store opened with held syncs, once its migrations' sync is released (the store is handed out only after it). */
async function openHeld(path: string, driver: SqliteDriverName) {
  const held = heldSyncs();
  const opening = openSqliteStore(path, { driver, datasync: held.datasync });
  await held.asked(1);
  held.calls[0]!.release();
  return { held, store: await opening };
}

for (const driver of availableSqliteDrivers()) {
  describe(`SQLite synchronous: full syncs the WAL off the event loop (${driver})`, () => {
    it('a write resolves only after a WAL sync that began after it; a read waits for none', async () => {
      const path = tempPath();
      const { held, store } = await openHeld(path, driver);
      try {
        const write = store.appendAudit(line('a'));
        await held.asked(2);
        expect(held.calls[1]!.path).toBe(`${path}-wal`);
        // the commit is done, the loop free (this turn ran), the answer not given
        expect(await settled(write)).toBe(false);
        const read = store.listAudit({});
        expect(await settled(read)).toBe(true);
        expect((await read).map((r) => r.kind)).toEqual(['a']);
        held.calls[1]!.release();
        expect((await write).kind).toBe('a');
        expect(held.calls).toHaveLength(2);
      } finally {
        for (const c of held.calls) c.release();
        await store.close();
      }
    });

    it('a failed sync is the method’s StoreUnavailableError', async () => {
      const { held, store } = await openHeld(tempPath(), driver);
      try {
        const write = store.appendAudit(line('b'));
        await held.asked(2);
        held.calls[1]!.fail(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
        const error = await write.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect(String((error as Error).message)).toMatch(/syncing the WAL/);
        // after a failed fsync nothing more is acknowledged: the kernel may report the next sync clean over lost pages
        await expect(store.appendAudit(line('after'))).rejects.toThrow(/a disk sync failed earlier/);
        await expect(store.listAudit({})).rejects.toBeInstanceOf(StoreUnavailableError);
        expect(held.calls).toHaveLength(2);
      } finally {
        await store.close();
      }
    });

    it('a database opened through a symbolic link syncs the WAL SQLite writes, next to the link’s target', async () => {
      const target = tempPath();
      const first = await openSqliteStore(target, { driver });
      await first.close();
      const link = join(dirname(tempPath()), 'linked.db');
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(target, link);
      const { held, store } = await openHeld(link, driver);
      try {
        const write = store.appendAudit(line('linked'));
        await held.asked(2);
        expect(held.calls[1]!.path).toBe(`${realpathSync(target)}-wal`);
        held.calls[1]!.release();
        await write;
      } finally {
        for (const c of held.calls) c.release();
        await store.close();
      }
    });

    it('the default sync keeps one handle on the WAL however many writes, and the store’s close() closes it', async () => {
      const path = tempPath();
      const store = await openSqliteStore(path, { driver });
      const wal = `${realpathSync(path)}-wal`;
      const counts: number[] = [];
      try {
        // SQLite's own descriptor on the WAL, plus the store's for its syncs
        for (let i = 0; i < 5; i++) {
          await store.appendAudit(line(`w${i}`));
          counts.push(descriptorsOn(wal));
        }
      } finally {
        await store.close();
      }
      expect(counts).toEqual([2, 2, 2, 2, 2]);
      expect(descriptorsOn(wal)).toBe(0);
    });

    it('synchronous: normal never syncs', async () => {
      const held = heldSyncs();
      const store = await openSqliteStore(tempPath(), { driver, synchronous: 'normal', datasync: held.datasync });
      try {
        await store.appendAudit(line('c'));
        expect(held.calls).toHaveLength(0);
      } finally {
        await store.close();
      }
    });

    it('the default sync is a real fdatasync of the WAL: a write resolves and is read back after reopening', async () => {
      const path = tempPath();
      const store = await openSqliteStore(path, { driver });
      await store.appendAudit(line('d'));
      await store.close();
      const again = await openSqliteStore(path, { driver });
      try {
        expect((await again.listAudit({})).map((r) => r.kind)).toEqual(['d']);
      } finally {
        await again.close();
      }
    });
  });
}
