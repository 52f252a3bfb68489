/**
 * Webhook dispatch end to end, in-process, with the bundled Xena example's
 * Manus route (`tool.manus.webhook.signal`: `agentmail` is signalWithStart,
 * `research` signalOnly). One table over the dispatchers: the store's inbox
 * (SQLite, real PostgreSQL) and real NATS JetStream. A signed webhook starts
 * the workflow once and signals in order, a replay is ignored, signalOnly to
 * a missing workflow is 409, an unknown workflowType 404, a bad signature
 * 401; inbox workers read and acknowledge over HTTP.
 */
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { afterAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { Registry } from '../../src/registry/registry.js';
import { jetStreamDispatcher, workflowSubject } from '../../src/runtime/dispatch/jetstream.js';
import type { Dispatcher } from '../../src/runtime/dispatch/dispatcher.js';
import type { AuthOutcome } from '../../src/runtime/identity/authenticate.js';
import type { RequestHead } from '../../src/server/auth.js';
import type { Principal } from '../../src/runtime/identity/principal.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { createApi } from '../../src/server/app.js';
import type { WebhookOptions } from '../../src/server/webhook-options.js';
import { signWebhook } from '../../src/server/webhook-signature.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { cleanFolders, folder, getJson } from '../server/helpers.js';
import { dropSchema, PG_URL, probePostgres, schemaName } from '../store/pg-helpers.js';

const TOOL = 'tool.manus.webhook.signal';
const SECRET = 'whsec-manus-test-0123456789';
const NOW = new Date('2026-11-24T03:00:00Z');
const T = Math.floor(NOW.getTime() / 1000);

const PRINCIPALS: Record<string, Principal> = {
  worker: { id: 'worker-bot', roles: ['admin'], personas: ['*'], via: 'api-key' },
  caller: { id: 'caller-bot', roles: ['caller'], personas: ['*'], via: 'api-key' },
};
async function authenticate(request: RequestHead): Promise<AuthOutcome> {
  const name = /^Bearer (\w+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
  const principal = name === undefined ? undefined : PRINCIPALS[name];
  return principal ? { ok: true, principal } : { ok: false, code: 'UNAUTHENTICATED', message: 'No credentials.' };
}

const pg = await probePostgres();
const natsUp = await connect({ servers: '127.0.0.1:4222', timeout: 2000 }).then(
  async (nc) => (await nc.close(), { up: true, reason: '' }),
  (err: Error) => ({ up: false, reason: `NATS at 127.0.0.1:4222 is not reachable (${err.message})` }),
);
if (!pg.reachable) console.log(`skipping the PostgreSQL inbox: ${pg.reason}`);
if (!natsUp.up) console.log(`skipping JetStream: ${natsUp.reason}`);

interface Backend {
  name: string;
  skip: boolean;
  store(): Promise<Store>;
  dispatcher?(): Promise<Dispatcher & { stream: string; subjectPrefix: string }>;
  cleanup?(): Promise<void>;
}
const schema = schemaName('toolcap_hooks');
const run = `r${Date.now().toString(36)}`;
const BACKENDS: Backend[] = [
  { name: 'inbox (SQLite)', skip: false, store: () => openSqliteStore(join(folder('toolcap-hooks-'), 'toolcap.db')) },
  { name: 'inbox (PostgreSQL)', skip: !pg.reachable, store: () => openPostgresStore(PG_URL, { schema }), cleanup: () => dropSchema(schema) },
  {
    name: 'NATS JetStream',
    skip: !natsUp.up,
    store: () => openSqliteStore(join(folder('toolcap-hooks-'), 'toolcap.db')),
    dispatcher: () => jetStreamDispatcher({ stream: `TOOLCAP_TEST_${run.toUpperCase()}`, subjectPrefix: `toolcap.test.${run}` }),
  },
];

afterAll(() => cleanFolders());

/** A signed webhook request for the Manus tool. */
function hook(app: Hono, workflowType: string | undefined, event: Record<string, unknown>, sign: { secret?: string; at?: number; signature?: string | null } = {}) {
  const body = JSON.stringify(event);
  const at = sign.at ?? T;
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-toolcap-timestamp': String(at) };
  const signature = sign.signature === undefined ? signWebhook(sign.secret ?? SECRET, at, body) : sign.signature;
  if (signature !== null) headers['x-toolcap-signature'] = signature;
  const query = workflowType === undefined ? '' : `?workflowType=${workflowType}`;
  return getJson(app, `/hooks/${TOOL}${query}`, { method: 'POST', headers, body });
}

/** The Xena examples' API with these webhook settings over an inbox on a fresh SQLite store; `close` ends it all. */
async function xenaHooks(webhooks: WebhookOptions): Promise<{ app: Hono; store: Store; close(): Promise<void> }> {
  const registry = new Registry({ paths: ['examples/manifests/xena'] });
  expect((await registry.start()).kind).toBe('reloaded');
  const store = await openSqliteStore(join(folder('toolcap-hooks-'), 'toolcap.db'));
  const runtime = new Runtime({ registry, store, providers: new ProviderTypes(), onWarning: () => undefined });
  const app = createApi(registry, { runtime, auth: { authenticate }, webhooks, onError: (e) => console.error(e) });
  return {
    app,
    store,
    close: async () => {
      await runtime.close();
      await store.close();
      await registry.close();
    },
  };
}

describe.each(BACKENDS)('webhook dispatch through $name', (backend) => {
  it.skipIf(backend.skip)('starts once, signals in order, ignores a replay, refuses what it must', async () => {
    const registry = new Registry({ paths: ['examples/manifests/xena'] });
    expect((await registry.start()).kind).toBe('reloaded');
    const store = await backend.store();
    const runtime = new Runtime({ registry, store, providers: new ProviderTypes(), onWarning: () => undefined });
    const dispatcher = await backend.dispatcher?.();
    const app = createApi(registry, {
      runtime,
      auth: { authenticate },
      webhooks: { tools: { [TOOL]: { secret: SECRET } }, now: () => NOW, ...(dispatcher ? { dispatcher } : {}) },
      onError: (e) => console.error(e),
    });
    let nc: NatsConnection | undefined;
    try {
      const wf = `mail-${run}`;
      const events = ['e1', 'e2', 'e3'].map((id, i) => ({ event_id: id, workflowId: wf, projectKey: 'acme', n: i, token: 'sk-live-4f9a8b7c6d5e4f3a' }));
      const answers = [];
      for (const e of events) answers.push(await hook(app, 'agentmail', e));
      expect(answers.map((a) => a.res.status)).toEqual([200, 200, 200]);
      expect(answers.map((a) => [a.body.started, a.body.duplicate])).toEqual([[true, false], [false, false], [false, false]]);
      const seqs = answers.map((a) => a.body.seq as number);
      expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);

      // a replay (same event id, signed afresh) is acknowledged and not dispatched again
      const replay = await hook(app, 'agentmail', events[1]!, { at: T + 5 });
      expect(replay.res.status).toBe(200);
      expect(replay.body).toMatchObject({ workflowId: wf, duplicate: true, started: false });
      // without an event id the body's hash is the key: the same body twice is one signal
      const anonymous = { workflowId: wf, note: 'no id' };
      expect((await hook(app, 'agentmail', anonymous)).body.duplicate).toBe(false);
      expect((await hook(app, 'agentmail', anonymous)).body.duplicate).toBe(true);

      // what the workflow received: one start, then the events in order, each once
      if (dispatcher) {
        nc = await connect({ servers: '127.0.0.1:4222' });
        const jsm = await nc.jetstreamManager();
        const subject = workflowSubject(dispatcher.subjectPrefix, 'agentmail', wf);
        const info = await jsm.streams.info(dispatcher.stream);
        const kinds: string[] = [];
        for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
          const m = await jsm.streams.getMessage(dispatcher.stream, { seq });
          if (m.subject !== subject) continue;
          const kind = m.header.get('Toolcap-Kind');
          kinds.push(kind === 'start' ? 'start' : `${m.header.get('Toolcap-Signal')}:${(m.json() as { event_id?: string }).event_id ?? 'hash'}`);
        }
        expect(kinds).toEqual(['start', 'manusEvent:e1', 'manusEvent:e2', 'manusEvent:e3', 'manusEvent:hash']);
      } else {
        const worker = { authorization: 'Bearer worker' };
        const got = await getJson(app, `/workflows/${wf}/signals`, { headers: worker });
        expect(got.res.status).toBe(200);
        expect(got.body.signals.map((s: { seq: number; signalName: string; idempotencyKey: string; payload: { n?: number } }) => [s.seq, s.signalName, s.idempotencyKey.replace(/^sha256:[0-9a-f]{64}$/, 'sha256'), s.payload.n])).toEqual([
          [1, 'manusEvent', 'event:e1', 0], [2, 'manusEvent', 'event:e2', 1], [3, 'manusEvent', 'event:e3', 2], [4, 'manusEvent', 'sha256', undefined],
        ]);
        expect((await getJson(app, `/workflows/${wf}`, { headers: worker })).body.workflow).toMatchObject({ id: wf, workflowType: 'agentmail', workflowName: 'agentmailWorkflow', bootstrap: 'agentmail', signals: 4 });
        // at least once: acknowledged signals leave the pending list, the rest stay
        expect((await getJson(app, `/workflows/${wf}/signals/1/ack`, { method: 'POST', headers: worker })).body.signal).toMatchObject({ seq: 1, ackedAt: expect.any(String) });
        expect((await getJson(app, `/workflows/${wf}/signals/2/ack`, { method: 'POST', headers: worker })).res.status).toBe(200);
        expect((await getJson(app, `/workflows/${wf}/signals`, { headers: worker })).body.signals.map((s: { seq: number }) => s.seq)).toEqual([3, 4]);
        expect((await getJson(app, `/workflows/${wf}/signals?after=3`, { headers: worker })).body.signals.map((s: { seq: number }) => s.seq)).toEqual([4]);
        expect((await getJson(app, `/workflows/${wf}/signals?all=1`, { headers: worker })).body.signals).toHaveLength(4);
        expect((await getJson(app, `/workflows/${wf}/signals/9/ack`, { method: 'POST', headers: worker })).body.code).toBe('WORKFLOW_NOT_FOUND');
        expect((await getJson(app, `/workflows/${wf}/signals?after=x`, { headers: worker })).body.code).toBe('BAD_PARAMETER');
        // the inbox is for workers: a caller may not read it, nobody unauthenticated
        expect((await getJson(app, `/workflows/${wf}/signals`, { headers: { authorization: 'Bearer caller' } })).res.status).toBe(403);
        expect((await getJson(app, `/workflows/${wf}/signals`)).res.status).toBe(401);
      }

      // signalOnly to a running workflow of its type is a signal; to a missing one, 409 naming it
      const missing = await hook(app, 'research', { event_id: 'r1', workflowId: `research-${run}` });
      expect(missing.res.status).toBe(409);
      expect(missing.body).toMatchObject({ code: 'WORKFLOW_NOT_RUNNING', workflowId: `research-${run}` });

      const refusals: Array<[string, Awaited<ReturnType<typeof hook>>, number, string, string?]> = [
        ['unknown workflowType', await hook(app, 'billing', events[0]!), 404, 'UNKNOWN_WORKFLOW_TYPE'],
        ['no workflowType', await hook(app, undefined, events[0]!), 404, 'UNKNOWN_WORKFLOW_TYPE'],
        ['wrong secret', await hook(app, 'agentmail', events[0]!, { secret: 'whsec-not-the-secret' }), 401, 'UNAUTHENTICATED', 'BAD_SIGNATURE'],
        ['no signature', await hook(app, 'agentmail', events[0]!, { signature: null }), 401, 'UNAUTHENTICATED', 'MISSING_SIGNATURE'],
        ['garbage signature', await hook(app, 'agentmail', events[0]!, { signature: 'sha256=zz' }), 401, 'UNAUTHENTICATED', 'BAD_SIGNATURE'],
        ['an old timestamp (captured and replayed later)', await hook(app, 'agentmail', events[0]!, { at: T - 3600 }), 401, 'UNAUTHENTICATED', 'STALE_TIMESTAMP'],
        ['no workflow id in the event', await hook(app, 'agentmail', { event_id: 'x' }), 400, 'BAD_BODY'],
        ['a workflow id that is no token', await hook(app, 'agentmail', { event_id: 'x', workflowId: 'a.b>c' }), 400, 'BAD_BODY'],
      ];
      for (const [why, got, status, code, reason] of refusals) {
        expect([why, got.res.status, got.body.code], why).toEqual([why, status, code]);
        if (reason) expect(got.body.reason, why).toBe(reason);
      }
      expect(refusals[0]![1].body.known).toEqual(['agentmail', 'research']);

      // audited with the webhook actor and the route, the event redacted
      const audit = await store.listAudit({ tool: TOOL, limit: 100 });
      const kinds = audit.map((a) => a.kind);
      expect(kinds.filter((k) => k === 'webhook.dispatched')).toHaveLength(4);
      expect(kinds.filter((k) => k === 'webhook.duplicate')).toHaveLength(2);
      expect(kinds).toContain('webhook.not_running');
      expect(audit[0]).toMatchObject({ actor: `webhook:${TOOL}`, detail: { workflowType: 'agentmail', workflowId: wf, mode: 'signalWithStart' } });
      expect(JSON.stringify(audit)).not.toContain('sk-live-4f9a8b7c6d5e4f3a');
    } finally {
      await nc?.close();
      await dispatcher?.close?.();
      await runtime.close();
      await store.close();
      await registry.close();
      await backend.cleanup?.();
    }
  });
});

describe('webhook replay within the tolerance window', () => {
  it('a captured signed request sent again with an X-Toolcap-Event-Id header of the replayer\'s choosing is a duplicate, not a second dispatch', async () => {
    const api = await xenaHooks({ tools: { [TOOL]: { secret: SECRET } }, now: () => NOW });
    const { app, store } = api;
    try {
      // what an eavesdropper captured: the body, its timestamp and its signature (no event id in the body)
      const body = JSON.stringify({ workflowId: `wire-${run}`, action: 'refund', amount: 100 });
      const signed = { 'content-type': 'application/json', 'x-toolcap-timestamp': String(T), 'x-toolcap-signature': signWebhook(SECRET, T, body) };
      const send = (extra: Record<string, string> = {}) => getJson(app, `/hooks/${TOOL}?workflowType=agentmail`, { method: 'POST', headers: { ...signed, ...extra }, body });
      expect((await send()).body).toMatchObject({ duplicate: false });
      for (const id of ['forged-1', 'forged-2']) {
        const again = await send({ 'x-toolcap-event-id': id });
        expect([id, again.res.status, again.body.duplicate]).toEqual([id, 200, true]);
      }
      expect((await store.listAudit({ tool: TOOL, limit: 100 })).filter((a) => a.kind === 'webhook.dispatched')).toHaveLength(1);
    } finally {
      await api.close();
    }
  });
});

describe('keyed webhook idempotency', () => {
  it('the event id in the body names the event for a keyed hook as for a signed one: a redelivery under another X-Toolcap-Event-Id (or none) is a duplicate', async () => {
    const KEY = 'whkey-manus-test-0123456789';
    const api = await xenaHooks({ tools: { [TOOL]: { key: KEY } }, now: () => NOW });
    const { app, store } = api;
    try {
      const send = (event: Record<string, unknown>, eventId?: string) =>
        getJson(app, `/hooks/${TOOL}?workflowType=agentmail`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-toolcap-webhook-key': KEY, ...(eventId !== undefined ? { 'x-toolcap-event-id': eventId } : {}) },
          body: JSON.stringify(event),
        });
      const refund = { event_id: 'pay-1', workflowId: `keyed-${run}`, action: 'refund', amount: 100 };
      // one event, delivered three times (a sender's retries, a proxy that adds or changes the delivery header)
      const answers = [await send(refund), await send(refund, 'delivery-1'), await send(refund, 'delivery-2')];
      expect(answers.map((a) => [a.res.status, a.body.duplicate])).toEqual([[200, false], [200, true], [200, true]]);
      // a body without an id: the header names the event (keyed hooks only), so two events with one body are two signals
      const ping = { workflowId: `keyed-${run}`, kind: 'ping' };
      expect((await send(ping, 'ping-1')).body.duplicate).toBe(false);
      expect((await send(ping, 'ping-1')).body.duplicate).toBe(true);
      expect((await send(ping, 'ping-2')).body.duplicate).toBe(false);
      // and without a header, the body's hash
      expect((await send({ workflowId: `keyed-${run}`, kind: 'pong' })).body.duplicate).toBe(false);
      expect((await send({ workflowId: `keyed-${run}`, kind: 'pong' })).body.duplicate).toBe(true);
      expect((await store.listAudit({ tool: TOOL, limit: 100 })).filter((a) => a.kind === 'webhook.dispatched')).toHaveLength(4);
    } finally {
      await api.close();
    }
  });
});

describe('signed replay across the dispatcher\'s duplicate window', () => {
  it.skipIf(!natsUp.up)('a JetStream stream that forgets keys sooner than the timestamp tolerance does not let a captured signed request be dispatched twice', async () => {
    // the operator's stream existed before toolcap, with a short duplicate window (NATS's own default is 2 minutes)
    const stream = `TOOLCAP_TEST_W${run.toUpperCase()}`;
    const subjectPrefix = `toolcap.testw.${run}`;
    const nc = await connect({ servers: '127.0.0.1:4222' });
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: stream, subjects: [`${subjectPrefix}.>`], duplicate_window: 2e9 });
    const dispatcher = await jetStreamDispatcher({ stream, subjectPrefix });
    let clock = NOW.getTime();
    const api = await xenaHooks({ tools: { [TOOL]: { secret: SECRET } }, now: () => new Date(clock), dispatcher });
    const { app } = api;
    try {
      const wf = `window-${run}`;
      const body = JSON.stringify({ workflowId: wf, action: 'refund', amount: 100 });
      const signed = { 'content-type': 'application/json', 'x-toolcap-timestamp': String(T), 'x-toolcap-signature': signWebhook(SECRET, T, body) };
      const send = () => getJson(app, `/hooks/${TOOL}?workflowType=agentmail`, { method: 'POST', headers: signed, body });
      expect((await send()).body).toMatchObject({ duplicate: false, started: true });
      // the stream forgets the key; the request is still within the 300 s tolerance
      await new Promise((r) => setTimeout(r, 2500));
      clock += 100_000;
      const replay = await send();
      expect(replay.res.status === 200 ? replay.body.duplicate : replay.body.reason).not.toBe(false);
      const subject = workflowSubject(subjectPrefix, 'agentmail', wf);
      const info = await jsm.streams.info(stream);
      let signals = 0;
      for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
        const m = await jsm.streams.getMessage(stream, { seq });
        if (m.subject === subject && m.header.get('Toolcap-Kind') === 'signal') signals++;
      }
      expect(signals).toBe(1);
      // a fresh delivery (signed now) still goes through
      const at = Math.floor(clock / 1000);
      const fresh = JSON.stringify({ workflowId: wf, event_id: 'later' });
      const later = await getJson(app, `/hooks/${TOOL}?workflowType=agentmail`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-toolcap-timestamp': String(at), 'x-toolcap-signature': signWebhook(SECRET, at, fresh) }, body: fresh });
      expect([later.res.status, later.body.duplicate]).toEqual([200, false]);
    } finally {
      await dispatcher.close?.();
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close();
      await api.close();
    }
  });
});

describe('what a webhook refusal repeats of the sender', () => {
  it('an unknown tool id and an unknown workflowType are redacted, then cut to 100 characters, in the problem body', async () => {
    const api = await xenaHooks({ tools: { [TOOL]: { secret: SECRET } }, now: () => NOW });
    const { app } = api;
    try {
      // a token whose first characters fall inside the 100 kept, the rest past them
      const token = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
      const pad = `${'x'.repeat(89)}-`;
      const unknownTool = await getJson(app, `/hooks/${pad}${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(unknownTool.res.status).toBe(404);
      const unknownType = await hook(app, `${pad}${token}`, { event_id: 'x', workflowId: 'w1' });
      expect(unknownType.res.status).toBe(404);
      for (const { body } of [unknownTool, unknownType]) {
        expect(String(body.detail)).not.toContain(token.slice(0, 8));
        expect(String(body.detail).length).toBeLessThan(400);
      }
    } finally {
      await api.close();
    }
  });
});
