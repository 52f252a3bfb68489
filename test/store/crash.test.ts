/**
 * The crash test: a child process writes to the store's database in a loop
 * (the same pragmas and SQL as the store, taken from src/store/), printing
 * each write after its commit returned; the parent kills it with SIGKILL at
 * random points, then opens the database with the store and checks that every
 * acknowledged record is there and intact, that no transaction is half kept,
 * that the database is sound, and that writing goes on.
 */
import { availableSqliteDrivers, openSqlite } from '../../src/store/sqlite-driver.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonEqual } from '../../src/model/objects.js';
import { APPROVAL_COLUMNS, AUDIT_COLUMNS } from '../../src/store/rows.js';
import { PG_STATEMENTS, openPostgresStore } from '../../src/store/postgres.js';
import { SQLITE_STATEMENTS, openSqliteStore, sqlitePragmas } from '../../src/store/sqlite.js';
import type { AuditRecord, Store } from '../../src/store/types.js';
import { PG_URL, dropSchema, probePostgres, schemaName } from './pg-helpers.js';

const CHILD = fileURLToPath(new URL('./crash-child.mjs', import.meta.url));
const ROUNDS = 5;

/** Must match detailFor() in crash-child.mjs. */
function expectedDetail(round: number, i: number): unknown {
  return { round, i, text: `crash ✓ 🚀 Grüße ${i}`, nested: { list: [i, i * 2, { deep: 'x'.repeat(i % 50) }] }, big: 2 ** 53 - i, none: null };
}

interface Ack {
  type: 'A' | 'P';
  i: number;
  seq: number;
  id?: string;
}

/** Run the child until it has acknowledged `killAfter` writes (or printed HOLD), SIGKILL it, and return every line it acknowledged. */
function runChild(config: Record<string, unknown>, killAfter: number): Promise<{ acks: Ack[]; held: boolean; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD], {
      env: { ...process.env, TOOLCAP_CRASH: JSON.stringify(config) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acks: Ack[] = [];
    let held = false;
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      const m = /^([AP]) (\d+) (\d+)(?: (\S+))?$/.exec(line);
      if (m) acks.push({ type: m[1] as 'A' | 'P', i: Number(m[2]), seq: Number(m[3]), ...(m[4] ? { id: m[4] } : {}) });
      else if (line === 'HOLD') held = true;
      if ((acks.length >= killAfter || held) && child.exitCode === null && !child.killed) child.kill('SIGKILL');
    });
    child.on('error', reject);
    // 'close' waits for stdout to end: every line the child wrote has been read
    child.on('close', (_code, signal) => resolve({ acks, held, signal, stderr }));
  });
}

/** Every audit record, oldest first, paging with afterSeq. */
async function allAudit(store: Store): Promise<AuditRecord[]> {
  const out: AuditRecord[] = [];
  for (;;) {
    const page = await store.listAudit({ afterSeq: out.at(-1)?.seq ?? 0, limit: 1000 });
    if (page.length === 0) return out;
    out.push(...page);
  }
}

/** The checks after a kill; returns how many acknowledged records were verified. */
async function verify(store: Store, round: number, acks: Ack[], contiguous: boolean): Promise<number> {
  const records = await allAudit(store);
  for (let k = 1; k < records.length; k++) expect(records[k]!.seq).toBeGreaterThan(records[k - 1]!.seq);
  if (contiguous) expect(records.map((r) => r.seq)).toEqual(records.map((_, k) => k + 1));
  const bySeq = new Map(records.map((r) => [r.seq, r]));
  let verified = 0;
  for (const ack of acks) {
    const rec = bySeq.get(ack.seq);
    expect(rec, `acknowledged seq ${ack.seq} (round ${round}, i ${ack.i}) is missing`).toBeDefined();
    if (ack.type === 'A') {
      expect(rec?.kind).toBe('crash.append');
      expect(jsonEqual(rec?.detail, expectedDetail(round, ack.i))).toBe(true);
    } else {
      expect(rec?.kind).toBe('crash.approval');
      expect(rec?.detail).toEqual({ approvalId: ack.id, i: ack.i });
      const apr = await store.getApproval(ack.id ?? '');
      expect(apr?.status).toBe('pending');
      expect(jsonEqual(apr?.arguments, expectedDetail(round, ack.i))).toBe(true);
    }
    verified += 1;
  }
  // no half transaction: every approval has its audit record, and every such audit record its approval
  const approvals = await store.listApprovals({ tool: 'crash.tool', limit: 1_000_000 });
  const audited = new Set(records.filter((r) => r.kind === 'crash.approval').map((r) => (r.detail as { approvalId: string }).approvalId));
  expect(new Set(approvals.map((a) => a.id))).toEqual(audited);
  return verified;
}

const probe = await probePostgres();
if (!probe.reachable) console.warn(`[toolcap] skipping the PostgreSQL crash test: ${probe.reason}`);

/** A kill point: after 100 to 400 acknowledged writes. */
const killPoint = (): number => 100 + Math.floor(Math.random() * 301);

describe('crash test: SIGKILL loses no acknowledged write', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolcap-crash-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  // each SQLite driver this Node can run (crash-child.mjs writes through the same one)
  it.each(availableSqliteDrivers())('sqlite (%s): every acknowledged record survives 5 kills at random points', { timeout: 180_000 }, async (driver) => {
    const path = join(root, driver, '.toolcap', 'toolcap.db');
    await (await openSqliteStore(path, { driver })).close(); // migrations by the store itself
    let acknowledged = 0;
    let verified = 0;
    let lastSeq = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const target = killPoint();
      const run = await runChild({ kind: 'sqlite', driver, round, path, pragmas: sqlitePragmas(), statements: SQLITE_STATEMENTS, approvalColumns: APPROVAL_COLUMNS, auditColumns: AUDIT_COLUMNS }, target);
      expect(run.stderr).toBe('');
      expect(run.signal).toBe('SIGKILL');
      expect(run.acks.length).toBeGreaterThanOrEqual(target);
      acknowledged += run.acks.length;

      const store = await openSqliteStore(path, { driver });
      try {
        verified += await verify(store, round, run.acks, true);
        const raw = openSqlite(path, { driver, readonly: true });
        try {
          expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
        } finally {
          raw.close();
        }
        const max = (await allAudit(store)).at(-1)?.seq ?? 0;
        expect(max).toBeGreaterThanOrEqual(lastSeq);
        const next = await store.appendAudit({ at: new Date().toISOString(), kind: 'crash.after', tool: null, callId: null, persona: null, actor: 'parent', detail: { round } });
        expect(next.seq).toBe(max + 1);
        lastSeq = next.seq;
      } finally {
        await store.close();
      }
    }
    console.log(`[crash sqlite ${driver}] ${ROUNDS} kills, ${acknowledged} records acknowledged, ${verified} verified`);
    expect(verified).toBe(acknowledged);
    expect(acknowledged).toBeGreaterThanOrEqual(ROUNDS * 100);
  });
});

describe.skipIf(!probe.reachable)('crash test: PostgreSQL (server reachable)', () => {
  const schema = schemaName('toolcap_crash');
  afterAll(() => dropSchema(schema));
  const childConfig = (round: number, mode = 'loop'): Record<string, unknown> => ({ kind: 'postgres', mode, round, url: PG_URL, schema, statements: PG_STATEMENTS, approvalColumns: APPROVAL_COLUMNS, auditColumns: AUDIT_COLUMNS });

  it('postgres: every acknowledged record survives 5 kills at random points', { timeout: 180_000 }, async () => {
    await (await openPostgresStore(PG_URL, { schema })).close();
    let acknowledged = 0;
    let verified = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const target = killPoint();
      const run = await runChild(childConfig(round), target);
      expect(run.stderr).toBe('');
      expect(run.signal).toBe('SIGKILL');
      acknowledged += run.acks.length;
      const store = await openPostgresStore(PG_URL, { schema });
      try {
        verified += await verify(store, round, run.acks, false);
        const max = (await allAudit(store)).at(-1)?.seq ?? 0;
        const next = await store.appendAudit({ at: new Date().toISOString(), kind: 'crash.after', tool: null, callId: null, persona: null, actor: 'parent', detail: { round } });
        expect(next.seq).toBeGreaterThan(max);
      } finally {
        await store.close();
      }
    }
    console.log(`[crash postgres] ${ROUNDS} kills, ${acknowledged} records acknowledged, ${verified} verified`);
    expect(verified).toBe(acknowledged);
    expect(acknowledged).toBeGreaterThanOrEqual(ROUNDS * 100);
  });

  it('postgres: a child killed inside an open transaction leaves no partial record, and writing goes on', { timeout: 60_000 }, async () => {
    const store = await openPostgresStore(PG_URL, { schema });
    try {
      const before = await allAudit(store);
      const run = await runChild(childConfig(99, 'hold'), Number.POSITIVE_INFINITY);
      expect(run.held).toBe(true);
      expect(run.signal).toBe('SIGKILL');
      expect(await store.getApproval('apr_hold_99')).toBeUndefined();
      // the append waits for the killed transaction's lock to go, then goes on
      const next = await store.appendAudit({ at: new Date().toISOString(), kind: 'crash.after', tool: null, callId: null, persona: null, actor: 'parent', detail: { hold: true } });
      const after = await allAudit(store);
      expect(after).toEqual([...before, next]);
      expect(after.some((r) => (r.detail as { approvalId?: string } | null)?.approvalId === 'apr_hold_99')).toBe(false);
    } finally {
      await store.close();
    }
  });
});
