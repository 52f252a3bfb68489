/**
 * The store contract: every back end runs this suite (see src/store/types.ts
 * for the rules). A harness gives fresh databases; each database can be
 * opened any number of times (reopen, two instances, migrations twice) and
 * written through the back end's own driver, outside the store (`raw`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { jsonEqual } from '../../src/model/objects.js';
import { LATEST_VERSION } from '../../src/store/migrations.js';
import {
  StoreUnavailableError,
  StoreVersionError,
  type ApprovalRecord,
  type AuditRecord,
  type CallRecord,
  type KeyStore,
  type NewAuditRecord,
  type Store,
} from '../../src/store/types.js';

export interface TestDatabase {
  /** Open a store on this database (applying migrations). */
  open(): Promise<Store & KeyStore>;
  /** Run one SQL statement through the back end's own driver, on a separate connection. */
  raw(sql: string): Promise<void>;
  /** Remove the database (called once, after every store on it is closed). */
  drop(): Promise<void>;
}

export interface StoreHarness {
  /** A new, empty database. */
  fresh(): Promise<TestDatabase>;
}

let counter = 0;

export function approval(over: Partial<ApprovalRecord> = {}): ApprovalRecord {
  counter += 1;
  return {
    id: `apr_${counter.toString(16).padStart(8, '0')}${Math.random().toString(16).slice(2, 10)}`,
    tool: 'files.delete',
    toolKey: 'files.delete',
    persona: null,
    arguments: { path: '/tmp/x', recursive: true },
    argumentsHash: 'sha256:' + 'a'.repeat(64),
    manifestHash: 'sha256:' + 'b'.repeat(64),
    requestedBy: 'agent-1',
    reason: 'destructive: deletes files',
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, counter % 60, counter)).toISOString(),
    expiresAt: '2026-01-02T00:00:00.000Z',
    status: 'pending',
    decidedBy: null,
    decidedAt: null,
    note: null,
    result: null,
    ...over,
  };
}

export function audit(over: Partial<NewAuditRecord> = {}): NewAuditRecord {
  return { at: '2026-01-01T00:00:00.000Z', kind: 'call.ok', tool: 'files.read', callId: 'call_1', persona: null, actor: 'agent-1', detail: { attempts: 1 }, ...over };
}

export function call(over: Partial<CallRecord> = {}): CallRecord {
  return { callId: 'call_1', tool: 'files.read', provider: 'local', job: null, persona: null, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 12.5, outcome: 'ok', errorCode: null, ...over };
}

/** JSON values that must come back equal; built with JSON.parse where a literal would not be plain data. */
export const JSON_CASES: Array<[string, unknown]> = [
  ['null', null],
  ['true', true],
  ['zero', 0],
  ['a negative float', -12.375],
  ['a large integer (beyond 2^53)', 12345678901234567890],
  ['the largest double', Number.MAX_VALUE],
  ['the smallest positive double', Number.MIN_VALUE],
  ['a tiny exponent', 1e-7],
  ['an empty string', ''],
  ['unicode text', 'Grüße, 東京, שלום, Ελληνικά'],
  ['emoji and a ZWJ sequence', '🚀 👩‍👩‍👧 🏳️‍🌈'],
  ['a NUL and control characters', 'a\u0000b\u0001c\n\t"\\'],
  ['a lone surrogate', 'x\ud800y'],
  ['an empty array', []],
  ['an empty object', {}],
  ['a mixed array', [1, 'two', null, false, { three: [3] }, [[]]]],
  ['a nested object', { a: { b: { c: { d: { e: [1, { f: 'g' }] } } } }, 'key with spaces': 1, '': 'empty key' }],
  ['deep nesting (60 levels)', JSON.parse('['.repeat(60) + '1' + ']'.repeat(60)) as unknown],
  ['__proto__ as a plain key', JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}') as unknown],
  ['a large object (2000 keys)', Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i * 1.5]))],
];

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * A fresh database of `harness` and a store on it; `open` opens more stores
 * on the same database. Every store is closed and the database dropped by a
 * function pushed onto `cleanups` (run them after each test).
 */
export async function freshStore(
  harness: StoreHarness,
  cleanups: Array<() => Promise<void>>,
): Promise<{ db: TestDatabase; store: Store & KeyStore; open: () => Promise<Store & KeyStore> }> {
  const db = await harness.fresh();
  const stores: Array<Store & KeyStore> = [];
  const open = async (): Promise<Store & KeyStore> => {
    const s = await db.open();
    stores.push(s);
    return s;
  };
  cleanups.push(async () => {
    for (const s of stores) await s.close();
    await db.drop();
  });
  return { db, store: await open(), open };
}

export function runStoreContract(name: string, harness: StoreHarness): void {
  describe(`store contract: ${name}`, () => {
    const cleanups: Array<() => Promise<void>> = [];

    /** A fresh database and a store on it, both cleaned up after the test. */
    const setup = () => freshStore(harness, cleanups);

    afterEach(async () => {
      while (cleanups.length) await cleanups.pop()?.();
    });

    it('opens, answers ping, and names its kind and location', async () => {
      const { store } = await setup();
      await expect(store.ping()).resolves.toBeUndefined();
      expect(store.kind).toBe(name);
      expect(store.location.length).toBeGreaterThan(0);
      expect(store.location).not.toMatch(/:[^:/@]+@/); // no password
    });

    describe('approvals', () => {
      it('creates and reads back every field', async () => {
        const { store } = await setup();
        const rec = approval({ persona: 'ops', note: 'n', arguments: { a: [1, 2, { b: 'c' }] } });
        await store.createApproval(rec);
        expect(await store.getApproval(rec.id)).toEqual(rec);
      });

      it('answers undefined for an unknown id', async () => {
        const { store } = await setup();
        expect(await store.getApproval('apr_missing')).toBeUndefined();
      });

      it('refuses a second approval with the same id, keeping the first', async () => {
        const { store } = await setup();
        const rec = approval();
        await store.createApproval(rec);
        await expect(store.createApproval({ ...rec, reason: 'other' })).rejects.toBeInstanceOf(StoreUnavailableError);
        expect((await store.getApproval(rec.id))?.reason).toBe(rec.reason);
      });

      it('lists newest first, with status and tool filters and a limit', async () => {
        const { store } = await setup();
        const recs = [
          approval({ createdAt: '2026-01-01T00:00:01.000Z', tool: 'a' }),
          approval({ createdAt: '2026-01-01T00:00:03.000Z', tool: 'b' }),
          approval({ createdAt: '2026-01-01T00:00:02.000Z', tool: 'a', status: 'approved' }),
          approval({ createdAt: '2026-01-01T00:00:04.000Z', tool: 'a' }),
        ];
        for (const r of recs) await store.createApproval(r);
        const ids = (list: ApprovalRecord[]): string[] => list.map((r) => r.id);
        expect(ids(await store.listApprovals())).toEqual([recs[3]!.id, recs[1]!.id, recs[2]!.id, recs[0]!.id]);
        expect(ids(await store.listApprovals({ status: 'pending' }))).toEqual([recs[3]!.id, recs[1]!.id, recs[0]!.id]);
        expect(ids(await store.listApprovals({ tool: 'a' }))).toEqual([recs[3]!.id, recs[2]!.id, recs[0]!.id]);
        expect(ids(await store.listApprovals({ tool: 'a', status: 'pending' }))).toEqual([recs[3]!.id, recs[0]!.id]);
        expect(ids(await store.listApprovals({ limit: 2 }))).toEqual([recs[3]!.id, recs[1]!.id]);
        expect(await store.listApprovals({ limit: 0 })).toEqual([]);
        expect(await store.listApprovals({ tool: 'none' })).toEqual([]);
      });

      it('breaks a createdAt tie by insertion order (the later one first)', async () => {
        const { store } = await setup();
        const first = approval({ createdAt: '2026-01-01T00:00:00.000Z' });
        const second = approval({ createdAt: '2026-01-01T00:00:00.000Z' });
        await store.createApproval(first);
        await store.createApproval(second);
        expect((await store.listApprovals()).map((r) => r.id)).toEqual([second.id, first.id]);
      });

      it('lists 100 by default', async () => {
        const { store } = await setup();
        for (let i = 0; i < 105; i++) await store.createApproval(approval());
        expect(await store.listApprovals()).toHaveLength(100);
        expect(await store.listApprovals({ limit: 200 })).toHaveLength(105);
      });

      it('updates with compare-and-set: changes only the named fields', async () => {
        const { store } = await setup();
        const rec = approval({ note: 'asked by the planner' });
        await store.createApproval(rec);
        const approved = await store.updateApproval(rec.id, 'pending', { status: 'approved', decidedBy: 'alice', decidedAt: '2026-01-01T01:00:00.000Z' });
        expect(approved).toEqual({ ...rec, status: 'approved', decidedBy: 'alice', decidedAt: '2026-01-01T01:00:00.000Z' });
        const executed = await store.updateApproval(rec.id, 'approved', { status: 'executed', result: { ok: true, rows: [1, 2] }, note: null });
        expect(executed).toEqual({ ...approved, status: 'executed', result: { ok: true, rows: [1, 2] }, note: null });
        expect(await store.getApproval(rec.id)).toEqual(executed);
      });

      it('refuses a second decision from the same status', async () => {
        const { store } = await setup();
        const rec = approval();
        await store.createApproval(rec);
        expect(await store.updateApproval(rec.id, 'pending', { status: 'approved', decidedBy: 'alice' })).toBeDefined();
        expect(await store.updateApproval(rec.id, 'pending', { status: 'denied', decidedBy: 'bob' })).toBeUndefined();
        const now = await store.getApproval(rec.id);
        expect(now?.status).toBe('approved');
        expect(now?.decidedBy).toBe('alice');
      });

      it('answers undefined when updating an unknown approval', async () => {
        const { store } = await setup();
        expect(await store.updateApproval('apr_missing', 'pending', { status: 'approved' })).toBeUndefined();
      });

      it('lets exactly one of two concurrent decisions win', async () => {
        const { store } = await setup();
        for (let round = 0; round < 10; round++) {
          const rec = approval();
          await store.createApproval(rec);
          const results = await Promise.all([
            store.updateApproval(rec.id, 'pending', { status: 'approved', decidedBy: 'alice' }),
            store.updateApproval(rec.id, 'pending', { status: 'denied', decidedBy: 'bob' }),
          ]);
          const winners = results.filter((r) => r !== undefined);
          expect(winners).toHaveLength(1);
          expect(await store.getApproval(rec.id)).toEqual(winners[0]);
        }
      });

      it('lets exactly one of two instances on one database win', async () => {
        const { store, open } = await setup();
        const other = await open();
        const rec = approval();
        await store.createApproval(rec);
        expect(await other.getApproval(rec.id)).toEqual(rec);
        const results = await Promise.all([
          store.updateApproval(rec.id, 'pending', { status: 'approved', decidedBy: 'alice' }),
          other.updateApproval(rec.id, 'pending', { status: 'denied', decidedBy: 'bob' }),
        ]);
        expect(results.filter((r) => r !== undefined)).toHaveLength(1);
        expect(await other.getApproval(rec.id)).toEqual(await store.getApproval(rec.id));
      });
    });

    describe('JSON round-trip', () => {
      it.each(JSON_CASES)('keeps %s in arguments, result and audit detail', async (_label, value) => {
        const { store } = await setup();
        const rec = approval({ arguments: value });
        await store.createApproval(rec);
        const back = await store.getApproval(rec.id);
        expect(jsonEqual(back?.arguments, value)).toBe(true);
        const done = await store.updateApproval(rec.id, 'pending', { status: 'executed', result: value });
        expect(jsonEqual(done?.result, value)).toBe(true);
        expect(jsonEqual((await store.getApproval(rec.id))?.result, value)).toBe(true);
        const appended = await store.appendAudit(audit({ detail: value }));
        expect(jsonEqual(appended.detail, value)).toBe(true);
        const [listed] = await store.listAudit({ afterSeq: appended.seq - 1, limit: 1 });
        expect(jsonEqual(listed?.detail, value)).toBe(true);
      });

      it('ignores key order', async () => {
        const { store } = await setup();
        const rec = approval({ arguments: { b: 1, a: { d: 2, c: 3 } } });
        await store.createApproval(rec);
        expect(jsonEqual((await store.getApproval(rec.id))?.arguments, { a: { c: 3, d: 2 }, b: 1 })).toBe(true);
      });

      it('keeps __proto__ as data and pollutes no prototype', async () => {
        const { store } = await setup();
        const value = JSON.parse('{"__proto__": {"polluted": "yes"}, "x": 1}') as Record<string, unknown>;
        const rec = approval({ arguments: value, result: value });
        await store.createApproval(rec);
        await store.appendAudit(audit({ detail: value }));
        const back = (await store.getApproval(rec.id))?.arguments as Record<string, unknown>;
        const [logged] = await store.listAudit();
        for (const v of [back, logged?.detail as Record<string, unknown>]) {
          expect(Object.prototype.hasOwnProperty.call(v, '__proto__')).toBe(true);
          expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
          expect((v as { polluted?: unknown }).polluted).toBeUndefined();
        }
        expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
        expect((Object.prototype as { polluted?: unknown }).polluted).toBeUndefined();
      });

      it('stores undefined as null', async () => {
        const { store } = await setup();
        const rec = approval({ result: undefined });
        await store.createApproval(rec);
        expect((await store.getApproval(rec.id))?.result).toBeNull();
      });
    });

    describe('audit', () => {
      it('assigns strictly increasing seq and keeps every field', async () => {
        const { store } = await setup();
        const appended: AuditRecord[] = [];
        for (let i = 0; i < 20; i++) {
          appended.push(await store.appendAudit(audit({ kind: i % 2 ? 'call.ok' : 'approval.approved', detail: { i }, persona: i % 3 ? null : 'ops' })));
        }
        for (let i = 1; i < appended.length; i++) expect(appended[i]!.seq).toBeGreaterThan(appended[i - 1]!.seq);
        expect(await store.listAudit()).toEqual(appended);
      });

      it('gives concurrent appends distinct, increasing seqs', async () => {
        const { store } = await setup();
        const appended = await Promise.all(Array.from({ length: 30 }, (_, i) => store.appendAudit(audit({ detail: { i } }))));
        expect(new Set(appended.map((r) => r.seq)).size).toBe(30);
        const listed = await store.listAudit();
        expect(listed.map((r) => r.seq)).toEqual([...appended.map((r) => r.seq)].sort((a, b) => a - b));
      });

      it('pages with afterSeq and filters by tool and callId, oldest first', async () => {
        const { store } = await setup();
        const all: AuditRecord[] = [];
        for (let i = 0; i < 25; i++) all.push(await store.appendAudit(audit({ tool: i % 2 ? 'a' : 'b', callId: `call_${i % 5}`, detail: { i } })));
        const paged: AuditRecord[] = [];
        let after = 0;
        for (;;) {
          const page = await store.listAudit({ afterSeq: after, limit: 7 });
          if (page.length === 0) break;
          expect(page.length).toBeLessThanOrEqual(7);
          paged.push(...page);
          after = page[page.length - 1]!.seq;
        }
        expect(paged).toEqual(all);
        expect(await store.listAudit({ tool: 'a' })).toEqual(all.filter((r) => r.tool === 'a'));
        expect(await store.listAudit({ callId: 'call_3' })).toEqual(all.filter((r) => r.callId === 'call_3'));
        expect(await store.listAudit({ tool: 'a', callId: 'call_3', afterSeq: all[10]!.seq })).toEqual(all.filter((r) => r.tool === 'a' && r.callId === 'call_3' && r.seq > all[10]!.seq));
        expect(await store.listAudit({ afterSeq: all[24]!.seq })).toEqual([]);
        expect(await store.listAudit({ limit: 3 })).toEqual(all.slice(0, 3));
      });

      it('lists 100 by default', async () => {
        const { store } = await setup();
        for (let i = 0; i < 103; i++) await store.appendAudit(audit({ detail: i }));
        expect(await store.listAudit()).toHaveLength(100);
      });

      it('is append-only: the database refuses UPDATE and DELETE', async () => {
        const { store, db } = await setup();
        const rec = await store.appendAudit(audit({ kind: 'call.ok' }));
        await expect(db.raw(`UPDATE audit SET kind = 'forged' WHERE seq = ${rec.seq}`)).rejects.toThrow(/append-only/);
        await expect(db.raw('DELETE FROM audit')).rejects.toThrow(/append-only/);
        await expect(db.raw(`DELETE FROM audit WHERE seq = ${rec.seq}`)).rejects.toThrow(/append-only/);
        expect(await store.listAudit()).toEqual([rec]);
        const next = await store.appendAudit(audit());
        expect(next.seq).toBeGreaterThan(rec.seq);
      });
    });

    describe('calls', () => {
      it('records and lists newest first, with since, tool and limit', async () => {
        const { store } = await setup();
        const calls = [
          call({ callId: 'c1', tool: 'a', startedAt: '2026-01-01T00:00:01.000Z' }),
          call({ callId: 'c2', tool: 'b', startedAt: '2026-01-01T00:00:02.000Z', outcome: 'error', errorCode: 'PROVIDER_ERROR', provider: null }),
          call({ callId: 'c3', tool: 'a', startedAt: '2026-01-01T00:00:03.000Z', outcome: 'timeout', errorCode: 'TIMEOUT', job: 'job-1', persona: 'ops', durationMs: 30000 }),
          call({ callId: 'c4', tool: 'a', startedAt: '2026-01-01T00:00:04.000Z', outcome: 'rejected', durationMs: 0 }),
        ];
        for (const c of calls) await store.recordCall(c);
        expect(await store.listCalls()).toEqual([...calls].reverse());
        expect(await store.listCalls({ tool: 'a' })).toEqual([calls[3], calls[2], calls[0]]);
        expect(await store.listCalls({ since: '2026-01-01T00:00:02.000Z' })).toEqual([calls[3], calls[2], calls[1]]);
        expect(await store.listCalls({ since: '2026-01-01T00:00:02.000Z', tool: 'a' })).toEqual([calls[3], calls[2]]);
        expect(await store.listCalls({ limit: 1 })).toEqual([calls[3]]);
        expect(await store.listCalls({ since: '2027-01-01T00:00:00.000Z' })).toEqual([]);
      });

      it('keeps several attempts of one call', async () => {
        const { store } = await setup();
        await store.recordCall(call({ callId: 'same', outcome: 'error', errorCode: 'PROVIDER_ERROR', startedAt: '2026-01-01T00:00:01.000Z' }));
        await store.recordCall(call({ callId: 'same', outcome: 'ok', startedAt: '2026-01-01T00:00:02.000Z' }));
        expect((await store.listCalls()).map((c) => c.outcome)).toEqual(['ok', 'error']);
      });

      it('records outcomes (a call and its audit line) in one batch, in order', async () => {
        const { store } = await setup();
        expect(store.recordOutcomes).toBeTypeOf('function');
        const batch = Array.from({ length: 50 }, (_, i) => ({
          call: call({ callId: `b${i}`, startedAt: new Date(Date.UTC(2026, 0, 1) + i).toISOString() }),
          audit: audit({ kind: 'call.ok', callId: `b${i}`, detail: { i, unicode: 'ü ✓ 🛠' } }),
        }));
        await store.recordOutcomes!(batch);
        expect(await store.listCalls({ limit: 100 })).toEqual(batch.map((b) => b.call).reverse());
        const lines = await store.listAudit({ limit: 100 });
        expect(lines.map((l) => [l.callId, l.detail])).toEqual(batch.map((b) => [b.call.callId, b.audit.detail]));
        expect(lines.map((l) => l.seq)).toEqual([...lines.map((l) => l.seq)].sort((a, b) => a - b));
        await store.recordOutcomes!([]);
        expect(await store.listCalls({ limit: 100 })).toHaveLength(50);
      });

      it('lists 1000 by default', async () => {
        const { store } = await setup();
        for (let i = 0; i < 1003; i++) await store.recordCall(call({ callId: `c${i}`, startedAt: new Date(Date.UTC(2026, 0, 1) + i).toISOString() }));
        const listed = await store.listCalls();
        expect(listed).toHaveLength(1000);
        expect(listed[0]?.callId).toBe('c1002');
        for (const c of listed) expect(c.startedAt).toMatch(ISO);
      });
    });

    describe('lifecycle', () => {
      it('keeps everything across a reopen', async () => {
        const { store, open } = await setup();
        const rec = approval({ arguments: { emoji: '🚀' } });
        await store.createApproval(rec);
        await store.updateApproval(rec.id, 'pending', { status: 'approved', decidedBy: 'alice' });
        const logged = await store.appendAudit(audit({ detail: { approvalId: rec.id } }));
        await store.recordCall(call());
        const before = { approvals: await store.listApprovals(), audit: await store.listAudit(), calls: await store.listCalls() };
        await store.close();
        const again = await open();
        expect({ approvals: await again.listApprovals(), audit: await again.listAudit(), calls: await again.listCalls() }).toEqual(before);
        const next = await again.appendAudit(audit());
        expect(next.seq).toBeGreaterThan(logged.seq);
      });

      it('applies migrations once: opening again changes nothing', async () => {
        const { db, store, open } = await setup();
        await store.appendAudit(audit());
        const second = await open();
        const third = await open();
        expect(await third.listAudit()).toHaveLength(1);
        await second.close();
        await third.close();
        // the migration table holds each version once
        await expect(db.raw(`INSERT INTO toolcap_migrations (version, applied_at) VALUES (${LATEST_VERSION}, 'dup')`)).rejects.toThrow();
      });

      it('refuses a database written by a newer toolcap', async () => {
        const { db, store, open } = await setup();
        await store.close();
        await db.raw(`INSERT INTO toolcap_migrations (version, applied_at) VALUES (${LATEST_VERSION + 1}, '2030-01-01T00:00:00.000Z')`);
        const err = await open().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(StoreVersionError);
        expect((err as Error).message).toMatch(new RegExp(`version ${LATEST_VERSION + 1}`));
      });

      it('rejects every method cleanly once closed, and closes twice', async () => {
        const { store } = await setup();
        await store.close();
        await expect(store.close()).resolves.toBeUndefined();
        const calls: Array<Promise<unknown>> = [
          store.ping(),
          store.createApproval(approval()),
          store.getApproval('x'),
          store.listApprovals(),
          store.updateApproval('x', 'pending', { status: 'approved' }),
          store.appendAudit(audit()),
          store.listAudit(),
          store.recordCall(call()),
          store.listCalls(),
        ];
        for (const p of calls) await expect(p).rejects.toBeInstanceOf(StoreUnavailableError);
      });
    });
  });
}
