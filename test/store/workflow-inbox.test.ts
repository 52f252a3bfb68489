/**
 * The workflow inbox in both stores (SQLite file, real PostgreSQL): one
 * contract. Start once, seqs in order per workflow, a repeated key is not
 * stored twice, signalOnly to a missing workflow stores nothing, acks are
 * kept, and concurrent deliveries never share a seq.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import type { InboxDelivery, InboxStore } from '../../src/store/workflow-inbox.js';
import { dropSchema, PG_URL, probePostgres, schemaName } from './pg-helpers.js';

const probe = await probePostgres();
if (!probe.reachable) console.log(`skipping the PostgreSQL inbox: ${probe.reason}`);

const delivery = (workflowId: string, key: string, over: Partial<InboxDelivery> = {}): InboxDelivery => ({
  workflowId, workflowType: 'agentmail', workflowName: 'agentmailWorkflow', bootstrap: 'agentmail', signalName: 'manusEvent', start: true, payload: { key }, idempotencyKey: key, at: '2026-11-24T03:00:00.000Z', ...over,
});

const HARNESSES: Array<{ name: string; skip: boolean; open(): Promise<{ store: Store & InboxStore; cleanup(): Promise<void> }> }> = [
  {
    name: 'SQLite', skip: false,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'toolcap-inbox-'));
      return { store: await openSqliteStore(join(dir, 'toolcap.db')), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'PostgreSQL', skip: !probe.reachable,
    async open() {
      const schema = schemaName('toolcap_inbox');
      return { store: await openPostgresStore(PG_URL, { schema }), cleanup: () => dropSchema(schema) };
    },
  },
];

describe.each(HARNESSES)('$name: workflow inbox', (h) => {
  it.skipIf(h.skip)('starts once, keeps order, drops repeated keys, refuses signalOnly to a missing workflow', async () => {
    const { store, cleanup } = await h.open();
    const inbox = store.workflowInbox;
    try {
      expect(await inbox.deliver(delivery('wf-1', 'a'))).toEqual({ outcome: 'stored', started: true, seq: 1 });
      expect(await inbox.deliver(delivery('wf-1', 'b'))).toEqual({ outcome: 'stored', started: false, seq: 2 });
      expect(await inbox.deliver(delivery('wf-1', 'a'))).toEqual({ outcome: 'duplicate', started: false, seq: 1 });
      expect(await inbox.deliver(delivery('wf-1', 'c', { start: false }))).toEqual({ outcome: 'stored', started: false, seq: 3 });
      expect(await inbox.deliver(delivery('wf-2', 'a', { start: false }))).toEqual({ outcome: 'not_running' });
      expect(await inbox.getWorkflow('wf-2')).toBeUndefined();
      // the same key for another workflow is another event
      expect(await inbox.deliver(delivery('wf-3', 'a'))).toEqual({ outcome: 'stored', started: true, seq: 1 });

      expect(await inbox.getWorkflow('wf-1')).toMatchObject({ id: 'wf-1', workflowName: 'agentmailWorkflow', bootstrap: 'agentmail', signals: 3 });
      expect((await inbox.listSignals('wf-1')).map((s) => [s.seq, s.idempotencyKey, s.payload])).toEqual([[1, 'a', { key: 'a' }], [2, 'b', { key: 'b' }], [3, 'c', { key: 'c' }]]);
      const acked = await inbox.ackSignal('wf-1', 2, '2026-11-24T03:01:00.000Z');
      expect(acked).toMatchObject({ seq: 2, ackedAt: '2026-11-24T03:01:00.000Z' });
      expect((await inbox.ackSignal('wf-1', 2, '2026-11-24T03:09:00.000Z'))?.ackedAt).toBe('2026-11-24T03:01:00.000Z');
      expect(await inbox.ackSignal('wf-1', 9, '2026-11-24T03:01:00.000Z')).toBeUndefined();
      expect((await inbox.listSignals('wf-1')).map((s) => s.seq)).toEqual([1, 3]);
      expect((await inbox.listSignals('wf-1', { after: 1 })).map((s) => s.seq)).toEqual([3]);
      expect((await inbox.listSignals('wf-1', { all: true, limit: 2 })).map((s) => s.seq)).toEqual([1, 2]);
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it.skipIf(h.skip)('concurrent deliveries to one workflow take distinct seqs 1..n, and one start', async () => {
    const { store, cleanup } = await h.open();
    try {
      const outs = await Promise.all(Array.from({ length: 20 }, (_, i) => store.workflowInbox.deliver(delivery('wf-c', `k${i}`))));
      expect(outs.filter((o) => o.outcome === 'stored' && o.started)).toHaveLength(1);
      expect(outs.map((o) => (o.outcome === 'not_running' ? 0 : o.seq)).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    } finally {
      await store.close();
      await cleanup();
    }
  });
});
