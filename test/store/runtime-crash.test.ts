/**
 * kill -9 during bursts, through the runtime (issue 12): a child runs many
 * concurrent plain writes, approval-gated writes and reads over a real
 * store and is killed with SIGKILL mid-burst, five times per store. Then:
 * every write call the child was answered is in the audit log with its
 * outcome (0 missing), every approved one `executed`; every effect a write
 * left has its `call.started` line (started before it ran); and after
 * `recoverInterrupted` no approval is left `approved` and every started
 * call has an outcome or `call.interrupted`. Reads may lose the records of
 * their last turn (write-behind): the figure is printed.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from '../../src/registry/registry.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { AuditRecord, Store } from '../../src/store/types.js';
import { bundleChild, type ChildBundle } from '../helpers/child-bundle.js';
import { PG_URL, dropSchema, probePostgres, schemaName } from './pg-helpers.js';

const ROUNDS = 5;
// compiled once for the file's ten kills (through vite-node each start transpiled the sources again)
let child: ChildBundle;
beforeAll(async () => {
  child = await bundleChild(new URL('./runtime-crash-child.ts', import.meta.url));
});
afterAll(() => child.remove());

const tool = (name: string, mode: 'read' | 'write', approval: boolean) => ({
  name,
  version: '1.0.0',
  description: `crash test ${name}`,
  inputSchema: { type: 'object' },
  effects: { mode, sideEffects: mode === 'read' ? 'none' : 'write', risk: 'low', reversible: 'full' },
  approval: { required: approval },
  execution: { timeoutSec: 30, retryClass: 'never', allowParallel: true },
  providers: [{ name: 'p', priority: 0, config: { type: 'fake' } }],
});

interface Ack {
  type: 'W' | 'G' | 'R';
  callId: string;
  approvalId?: string;
}

function runChild(env: Record<string, unknown>, killAfter: number): Promise<{ acks: Ack[]; stderr: string; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child.file], { env: { ...process.env, TOOLCAP_CRASH: JSON.stringify(env) }, stdio: ['ignore', 'pipe', 'pipe'] });
    const acks: Ack[] = [];
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    createInterface({ input: proc.stdout }).on('line', (line) => {
      const m = /^([WGR]) (\S+)(?: (\S+))?$/.exec(line);
      if (m) acks.push({ type: m[1] as Ack['type'], callId: m[2]!, ...(m[3] ? { approvalId: m[3] } : {}) });
      // counted in writes: reads are answered without waiting and would reach any count first
      if (acks.filter((a) => a.type !== 'R').length >= killAfter && proc.exitCode === null && !proc.killed) proc.kill('SIGKILL');
    });
    proc.on('error', reject);
    proc.on('close', (_code, signal) => resolve({ acks, stderr, signal }));
  });
}

async function allAudit(store: Store): Promise<AuditRecord[]> {
  const out: AuditRecord[] = [];
  for (;;) {
    const page = await store.listAudit({ afterSeq: out.at(-1)?.seq ?? 0, limit: 5000 });
    if (page.length === 0) return out;
    out.push(...page);
  }
}

interface Figures {
  writes: number;
  writesMissing: number;
  reads: number;
  readsMissing: number;
  interruptedCalls: number;
  interruptedApprovals: number;
}

/** One kill and the checks after it. */
async function round(open: () => Promise<Store>, dir: string, extra: Record<string, unknown>): Promise<Figures> {
  const manifests = join(dir, 'manifests');
  const effects = join(dir, `effects-${Math.random().toString(16).slice(2)}.txt`);
  writeFileSync(effects, '');
  const killAfter = 100 + Math.floor(Math.random() * 301);
  const run = await runChild({ ...extra, manifests, effects, writers: 12, gated: 4, readers: 4 }, killAfter);
  expect(run.stderr.replace(/^warning: .*\n?/gm, '')).toBe('');
  expect(run.signal).toBe('SIGKILL');

  const store = await open();
  const registry = new Registry({ paths: [manifests] });
  await registry.start();
  try {
    const before = await allAudit(store);
    const outcomes = new Set(before.filter((a) => a.kind === 'call.ok' || a.kind === 'call.error').map((a) => a.callId));
    const starts = new Set(before.filter((a) => a.kind === 'call.started').map((a) => a.callId));
    const writes = run.acks.filter((a) => a.type !== 'R');
    const reads = run.acks.filter((a) => a.type === 'R');
    const writesMissing = writes.filter((a) => !outcomes.has(a.callId));
    for (const g of writes.filter((a) => a.type === 'G')) expect((await store.getApproval(g.approvalId!))?.status).toBe('executed');
    // every effect of a write was on record before it happened
    const effected = readFileSync(effects, 'utf8').split('\n').filter((l) => l !== '');
    expect(effected.filter((id) => !starts.has(id))).toEqual([]);

    // the next start: nothing approved or started is left without an end
    const runtime = new Runtime({ registry, store, providers: new ProviderTypes({ empty: true }) });
    const recovered = await runtime.recoverInterrupted();
    expect(await store.listApprovals({ status: 'approved', limit: 100_000 })).toEqual([]);
    const after = await allAudit(store);
    const ended = new Set(after.filter((a) => ['call.ok', 'call.error', 'call.interrupted'].includes(a.kind)).map((a) => a.callId));
    expect([...starts].filter((id) => !ended.has(id))).toEqual([]);
    await runtime.close();
    return {
      writes: writes.length,
      writesMissing: writesMissing.length,
      reads: reads.length,
      readsMissing: reads.filter((a) => !outcomes.has(a.callId)).length,
      interruptedCalls: recovered.calls.length,
      interruptedApprovals: recovered.approvals.length,
    };
  } finally {
    await registry.close();
    await store.close();
  }
}

async function burst(label: string, open: () => Promise<Store>, dir: string, extra: Record<string, unknown>): Promise<void> {
  mkdirSync(join(dir, 'manifests'), { recursive: true });
  writeFileSync(join(dir, 'manifests', 'tools.yaml'), JSON.stringify({ toolcap: 1, tools: [tool('crash.write', 'write', false), tool('crash.gated', 'write', true), tool('crash.read', 'read', false)] }));
  await (await open()).close();
  const total: Figures = { writes: 0, writesMissing: 0, reads: 0, readsMissing: 0, interruptedCalls: 0, interruptedApprovals: 0 };
  for (let i = 0; i < ROUNDS; i++) {
    const f = await round(open, dir, extra);
    for (const k of Object.keys(total) as Array<keyof Figures>) total[k] += f[k];
  }
  console.log(
    `[runtime crash ${label}] ${ROUNDS} kills: ${total.writesMissing}/${total.writes} acknowledged write calls missing; ` +
      `${total.readsMissing}/${total.reads} acknowledged read calls without their record (write-behind); ` +
      `${total.interruptedCalls} calls and ${total.interruptedApprovals} approvals marked interrupted at the next start`,
  );
  expect(total.writesMissing).toBe(0);
  expect(total.writes).toBeGreaterThan(ROUNDS * 50);
}

const probe = await probePostgres();

describe('kill -9 during a burst through the runtime: no acknowledged write is lost', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolcap-runtime-crash-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('sqlite', { timeout: 240_000 }, async () => {
    const dir = join(root, 'sqlite');
    const path = join(dir, '.toolcap', 'toolcap.db');
    await burst('sqlite', () => openSqliteStore(path), dir, { kind: 'sqlite', path });
    expect(existsSync(path)).toBe(true);
  });

  describe.skipIf(!probe.reachable)('postgres (server reachable)', () => {
    const schema = schemaName('toolcap_rcrash');
    afterAll(() => dropSchema(schema));
    it('postgres', { timeout: 240_000 }, async () => {
      await burst('postgres', () => openPostgresStore(PG_URL, { schema }), join(root, 'postgres'), { kind: 'postgres', url: PG_URL, schema });
    });
  });
});
