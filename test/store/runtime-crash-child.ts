/**
 * The runtime crash test's child (test/store/runtime-crash.test.ts),
 * bundled by test/helpers/child-bundle.ts and run with node: a Runtime over a real store (SQLite or PostgreSQL) with
 * many concurrent writers: plain writes, approval-gated writes (asked for
 * and approved here) and reads. The fake provider leaves its effect (the
 * call id appended to a file) before answering. A line is printed for every
 * call the runtime answered, after it answered:
 *   W <callId>   a plain write
 *   G <callId> <approvalId>   an approved write that ran
 *   R <callId>   a read
 * The parent kills it with SIGKILL in the middle of the burst.
 */
import { appendFileSync, writeSync } from 'node:fs';
import { Registry } from '../../src/registry/registry.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';

const config = JSON.parse(process.env['TOOLCAP_CRASH'] ?? '{}') as { kind: 'sqlite' | 'postgres'; path: string; url: string; schema: string; manifests: string; effects: string; writers: number; gated: number; readers: number };
/** Whole lines, written synchronously: a full pipe (EAGAIN) is waited out, never dropped. */
function say(line: string): void {
  const bytes = Buffer.from(`${line}\n`);
  for (let at = 0; at < bytes.length; ) {
    try {
      at += writeSync(1, bytes, at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    }
  }
}

const store = config.kind === 'sqlite' ? await openSqliteStore(config.path) : await openPostgresStore(config.url, { schema: config.schema });
const registry = new Registry({ paths: [config.manifests] });
await registry.start();
const providers = new ProviderTypes({ empty: true }).register({
  type: 'fake',
  create: (entry) => ({
    name: entry.name,
    type: 'fake',
    call: async (_args, ctx) => {
      await new Promise((r) => setImmediate(r));
      // the effect, before the answer: what a lost record would hide
      if (ctx.tool.effects?.mode !== 'read') appendFileSync(config.effects, `${ctx.callId}\n`);
      return 'done';
    },
  }),
});
const runtime = new Runtime({ registry, store, providers, onWarning: (m) => process.stderr.write(`warning: ${m}\n`) });

async function writer(): Promise<never> {
  for (;;) {
    const r = await runtime.call('crash.write', { n: 1 });
    say(`W ${r.callId}`);
  }
}

async function gated(): Promise<never> {
  for (;;) {
    const r = await runtime.call('crash.gated', { n: 1 });
    if (r.status !== 'pending_approval') throw new Error('expected an approval');
    const out = await runtime.approve(r.approval.id, { by: 'crash-approver' });
    if (out.call) say(`G ${out.call.callId} ${r.approval.id}`);
  }
}

async function reader(): Promise<never> {
  for (;;) {
    const r = await runtime.call('crash.read', {});
    say(`R ${r.callId}`);
    // a read is answered before its record is written: an unpaced loop would only measure the backlog
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

say('READY');
await Promise.all([
  ...Array.from({ length: config.writers }, writer),
  ...Array.from({ length: config.gated }, gated),
  ...Array.from({ length: config.readers }, reader),
]);
