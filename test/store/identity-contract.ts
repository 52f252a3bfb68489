/**
 * The store contract for identity (migration 2): API keys, and the
 * authenticated principals of approvals. Every back end runs it next to the
 * main contract (`contract.ts`), on the same harness.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { OAuthTokenStore } from '../../src/store/oauth-tokens.js';
import { LATEST_VERSION } from '../../src/store/migrations.js';
import { StoreUnavailableError, type KeyRecord } from '../../src/store/types.js';
import { approval, freshStore, type StoreHarness } from './contract.js';

let counter = 0;

export function key(over: Partial<KeyRecord> = {}): KeyRecord {
  counter += 1;
  return {
    id: `k${counter.toString(16).padStart(15, '0')}`,
    principal: 'ci-bot',
    roles: ['caller'],
    personas: ['atlas'],
    defaultPersona: 'atlas',
    approves: null,
    hash: 'h'.repeat(43),
    salt: 's'.repeat(22),
    params: 'scrypt:N=16384,r=8,p=1,len=32',
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, counter % 60, counter)).toISOString(),
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: null,
    ...over,
  };
}


export function runIdentityContract(name: string, harness: StoreHarness): void {
  describe(`store identity contract: ${name}`, () => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      while (cleanups.length) await cleanups.pop()?.();
    });

    const setup = () => freshStore(harness, cleanups);

    describe('keys', () => {
      it.each([
        ['a caller key', key()],
        ['an approver key that expires', key({ roles: ['caller', 'approver'], personas: ['*'], defaultPersona: null, approves: { personas: ['atlas', 'ops'], tools: ['files.*'] }, expiresAt: '2027-01-01T00:00:00.000Z' })],
        ['a key with unicode grants', key({ principal: 'zoë@example.org', personas: ['Grüße', '東京'], defaultPersona: '東京' })],
      ])('creates and reads back every field: %s', async (_label, rec) => {
        const { store } = await setup();
        await store.createKey(rec);
        expect(await store.getKey(rec.id)).toEqual(rec);
      });

      it('answers undefined for an unknown id, and refuses a second key with the same id', async () => {
        const { store } = await setup();
        expect(await store.getKey('missing')).toBeUndefined();
        const rec = key();
        await store.createKey(rec);
        await expect(store.createKey({ ...rec, principal: 'intruder' })).rejects.toBeInstanceOf(StoreUnavailableError);
        expect((await store.getKey(rec.id))?.principal).toBe('ci-bot');
      });

      it('lists newest first, by principal, without revoked keys unless asked, with a limit', async () => {
        const { store } = await setup();
        const a = key({ principal: 'a', createdAt: '2026-01-01T00:00:01.000Z' });
        const b = key({ principal: 'b', createdAt: '2026-01-01T00:00:02.000Z' });
        const c = key({ principal: 'a', createdAt: '2026-01-01T00:00:03.000Z' });
        const tie = key({ principal: 'a', createdAt: '2026-01-01T00:00:03.000Z' });
        for (const r of [a, b, c, tie]) await store.createKey(r);
        expect((await store.listKeys()).map((r) => r.id)).toEqual([tie.id, c.id, b.id, a.id]);
        expect((await store.listKeys({ principal: 'a' })).map((r) => r.id)).toEqual([tie.id, c.id, a.id]);
        await store.revokeKey(c.id, '2026-02-01T00:00:00.000Z');
        expect((await store.listKeys({ principal: 'a' })).map((r) => r.id)).toEqual([tie.id, a.id]);
        expect((await store.listKeys({ principal: 'a', includeRevoked: true })).map((r) => r.id)).toEqual([tie.id, c.id, a.id]);
        expect(await store.listKeys({ limit: 1 })).toEqual([tie]);
        expect(await store.listKeys({ principal: 'nobody' })).toEqual([]);
      });

      it('revokes once: the revoked record comes back, a second revoke and an unknown id answer undefined', async () => {
        const { store } = await setup();
        const rec = key();
        await store.createKey(rec);
        const at = '2026-03-01T00:00:00.000Z';
        expect(await store.revokeKey(rec.id, at)).toEqual({ ...rec, revokedAt: at });
        expect(await store.revokeKey(rec.id, '2026-04-01T00:00:00.000Z')).toBeUndefined();
        expect(await store.revokeKey('missing', at)).toBeUndefined();
        expect((await store.getKey(rec.id))?.revokedAt).toBe(at);
      });

      it('lets exactly one of two concurrent revokes win', async () => {
        const { store, open } = await setup();
        const other = await open();
        const rec = key();
        await store.createKey(rec);
        const results = await Promise.all([store.revokeKey(rec.id, '2026-03-01T00:00:00.000Z'), other.revokeKey(rec.id, '2026-03-01T00:00:01.000Z')]);
        expect(results.filter((r) => r !== undefined)).toHaveLength(1);
      });

      it('notes the last use, never moving it back, and ignores an unknown id', async () => {
        const { store } = await setup();
        const rec = key();
        await store.createKey(rec);
        await store.touchKey(rec.id, '2026-05-01T00:00:00.000Z');
        expect((await store.getKey(rec.id))?.lastUsedAt).toBe('2026-05-01T00:00:00.000Z');
        await store.touchKey(rec.id, '2026-04-01T00:00:00.000Z');
        expect((await store.getKey(rec.id))?.lastUsedAt).toBe('2026-05-01T00:00:00.000Z');
        await store.touchKey(rec.id, '2026-06-01T00:00:00.000Z');
        expect(await store.getKey(rec.id)).toEqual({ ...rec, lastUsedAt: '2026-06-01T00:00:00.000Z' });
        await expect(store.touchKey('missing', '2026-06-01T00:00:00.000Z')).resolves.toBeUndefined();
      });

      it('rejects every key method cleanly once closed', async () => {
        const { store } = await setup();
        await store.close();
        const calls: Array<Promise<unknown>> = [store.createKey(key()), store.getKey('x'), store.listKeys(), store.revokeKey('x', 'now'), store.touchKey('x', 'now')];
        for (const p of calls) await expect(p).rejects.toBeInstanceOf(StoreUnavailableError);
      });
    });

    describe('approvals: who asked, who decided, and where', () => {
      it('keeps the requesting principal, and the deciding principal and channel set by a decision', async () => {
        const { store } = await setup();
        const rec = approval({ requestedByPrincipal: 'ci-bot' });
        await store.createApproval(rec);
        expect(await store.getApproval(rec.id)).toEqual(rec);
        const decided = await store.updateApproval(rec.id, 'pending', { status: 'approved', decidedBy: 'alice', decidedByPrincipal: 'alice@example.org', decidedVia: 'elicitation' });
        expect(decided).toEqual({ ...rec, status: 'approved', decidedBy: 'alice', decidedByPrincipal: 'alice@example.org', decidedVia: 'elicitation' });
        // an update that does not name them leaves them
        const executed = await store.updateApproval(rec.id, 'approved', { status: 'executed', result: { ok: true } });
        expect(executed).toMatchObject({ requestedByPrincipal: 'ci-bot', decidedByPrincipal: 'alice@example.org', decidedVia: 'elicitation' });
        expect(await store.listApprovals()).toEqual([executed]);
      });

      it('leaves the fields out while unknown, so older records read back as they were', async () => {
        const { store } = await setup();
        const rec = approval();
        await store.createApproval(rec);
        const read = await store.getApproval(rec.id);
        expect(read).toEqual(rec);
        for (const field of ['requestedByPrincipal', 'decidedByPrincipal', 'decidedVia']) expect(read).not.toHaveProperty(field);
        const cleared = await store.updateApproval(rec.id, 'pending', { status: 'denied', decidedByPrincipal: null, decidedVia: null });
        expect(cleared).not.toHaveProperty('decidedVia');
      });

      it.each([
        ['an ok outcome', { status: 'ok', result: { rows: [1, 2], note: 'Grüße \u0000' }, provider: 'p1', attempts: 2, durationMs: 12.5 }],
        ['a truncated result', { status: 'ok', result: { truncated: true, bytes: 2_000_000 }, provider: 'p1', attempts: 1, durationMs: 3 }],
        ['an error outcome', { status: 'error', code: 'TOOL_REJECTED', message: 'HTTP 422' }],
      ] as const)('keeps the outcome of the approved call (%s), and getApproval returns it', async (_label, outcome) => {
        const { store, open } = await setup();
        const rec = approval({ requestedByPrincipal: 'ci-bot' });
        await store.createApproval(rec);
        await store.updateApproval(rec.id, 'pending', { status: 'approved', decidedByPrincipal: 'alice', decidedVia: 'http' });
        const status = outcome.status === 'ok' ? 'executed' : 'failed';
        const done = await store.updateApproval(rec.id, 'approved', { status, outcome });
        expect(done?.outcome).toEqual(outcome);
        // another instance on the same database reads it too
        const other = await open();
        expect(await other.getApproval(rec.id)).toEqual(done);
        expect(await other.getApproval(rec.id)).toMatchObject({ status, outcome, decidedByPrincipal: 'alice' });
      });

      it('has no outcome until one is set, and an update that does not name it leaves it', async () => {
        const { store } = await setup();
        const rec = approval();
        await store.createApproval(rec);
        expect(await store.getApproval(rec.id)).not.toHaveProperty('outcome');
        const outcome = { status: 'error', code: 'TIMEOUT', message: 'slow' } as const;
        await store.updateApproval(rec.id, 'pending', { status: 'failed', outcome });
        expect((await store.updateApproval(rec.id, 'failed', { status: 'failed', note: 'seen' }))?.outcome).toEqual(outcome);
        expect(await store.updateApproval(rec.id, 'failed', { status: 'failed', outcome: null })).not.toHaveProperty('outcome');
      });

      it('lists the approvals one principal asked for, newest first, with the other filters', async () => {
        const { store } = await setup();
        const a1 = approval({ requestedByPrincipal: 'ci-bot', createdAt: '2026-01-01T00:00:01.000Z' });
        const b1 = approval({ requestedByPrincipal: 'other', createdAt: '2026-01-01T00:00:02.000Z' });
        const a2 = approval({ requestedByPrincipal: 'ci-bot', tool: 'files.read', createdAt: '2026-01-01T00:00:03.000Z' });
        const none = approval({ createdAt: '2026-01-01T00:00:04.000Z' });
        for (const r of [a1, b1, a2, none]) await store.createApproval(r);
        await store.updateApproval(a1.id, 'pending', { status: 'denied' });
        expect((await store.listApprovals({ requestedByPrincipal: 'ci-bot' })).map((r) => r.id)).toEqual([a2.id, a1.id]);
        expect((await store.listApprovals({ requestedByPrincipal: 'ci-bot', status: 'pending' })).map((r) => r.id)).toEqual([a2.id]);
        expect((await store.listApprovals({ requestedByPrincipal: 'ci-bot', tool: 'files.delete' })).map((r) => r.id)).toEqual([a1.id]);
        expect(await store.listApprovals({ requestedByPrincipal: 'nobody' })).toEqual([]);
        expect(await store.listApprovals()).toHaveLength(4);
      });

      it('refuses a channel outside http, cli and elicitation in the database', async () => {
        const { store, db } = await setup();
        const rec = approval();
        await store.createApproval(rec);
        await expect(db.raw(`UPDATE approvals SET decided_via = 'email' WHERE id = '${rec.id}'`)).rejects.toThrow();
        await db.raw(`UPDATE approvals SET decided_via = 'cli' WHERE id = '${rec.id}'`);
        expect((await store.getApproval(rec.id))?.decidedVia).toBe('cli');
      });
    });

    it(`upgrades a version 1 database to version ${LATEST_VERSION}, keeping its approvals`, async () => {
      const { db, store, open } = await setup();
      const rec = approval({ persona: 'ops' });
      await store.createApproval(rec);
      await store.close();
      // back to version 1 by hand: what an older toolcap left behind
      for (const sql of [
        'DROP TABLE provider_circuits',
        'DROP TABLE workflow_signals',
        'DROP TABLE workflows',
        'DROP TABLE learned_tools',
        'DROP TABLE oauth_tokens',
        'DROP TABLE calls_in_flight',
        'ALTER TABLE approvals DROP COLUMN code_hash',
        'DROP INDEX approvals_principal_status',
        'ALTER TABLE approvals DROP COLUMN outcome',
        'DROP TABLE keys',
        'ALTER TABLE approvals DROP COLUMN requested_by_principal',
        'ALTER TABLE approvals DROP COLUMN decided_by_principal',
        'ALTER TABLE approvals DROP COLUMN decided_via',
        'DELETE FROM toolcap_migrations WHERE version > 1',
      ]) await db.raw(sql);
      const upgraded = await open();
      expect(await upgraded.getApproval(rec.id)).toEqual(rec);
      const k = key();
      await upgraded.createKey(k);
      expect(await upgraded.getKey(k.id)).toEqual(k);
      // migration 5 ran again: the OAuth table is back
      expect(await (upgraded as unknown as OAuthTokenStore).listOAuthTokens()).toEqual([]);
      await expect(db.raw(`INSERT INTO toolcap_migrations (version, applied_at) VALUES (2, 'dup')`)).rejects.toThrow();
    });
  });
}
