/**
 * How a webhook proves its sender (signed or keyed), and how an event id
 * becomes an idempotency key that is safe in a header.
 */
import { describe, expect, it } from 'vitest';
import { effectiveToleranceSec, eventKey, signWebhook, verifyWebhook, webhookIdempotencyKey, type WebhookTool } from '../../src/server/webhook-signature.js';

const NOW = new Date('2026-11-24T03:00:00Z');
const T = NOW.getTime() / 1000;
const BODY = '{"workflowId":"w1"}';
const signed: WebhookTool = { secret: 'whsec-abcdef123456' };
const keyed: WebhookTool = { key: 'key-abcdef123456' };

describe('verifyWebhook', () => {
  it.each([
    ['signed, right', signed, { 'x-toolcap-timestamp': String(T), 'x-toolcap-signature': signWebhook('whsec-abcdef123456', T, BODY) }, undefined],
    ['signed, upper-case hex', signed, { 'x-toolcap-timestamp': String(T), 'x-toolcap-signature': signWebhook('whsec-abcdef123456', T, BODY).toUpperCase().replace('SHA256=', 'sha256=') }, undefined],
    ['signed, another body', signed, { 'x-toolcap-timestamp': String(T), 'x-toolcap-signature': signWebhook('whsec-abcdef123456', T, '{}') }, 'BAD_SIGNATURE'],
    ['signed, the timestamp changed', signed, { 'x-toolcap-timestamp': String(T + 1), 'x-toolcap-signature': signWebhook('whsec-abcdef123456', T, BODY) }, 'BAD_SIGNATURE'],
    ['signed, no timestamp', signed, { 'x-toolcap-signature': signWebhook('whsec-abcdef123456', T, BODY) }, 'MISSING_SIGNATURE'],
    ['signed, a timestamp that is no number', signed, { 'x-toolcap-timestamp': '1e9', 'x-toolcap-signature': 'sha256=00' }, 'BAD_SIGNATURE'],
    ['signed, too old', signed, { 'x-toolcap-timestamp': String(T - 301), 'x-toolcap-signature': signWebhook('whsec-abcdef123456', T - 301, BODY) }, 'STALE_TIMESTAMP'],
    ['signed, too far ahead', signed, { 'x-toolcap-timestamp': String(T + 301), 'x-toolcap-signature': signWebhook('whsec-abcdef123456', T + 301, BODY) }, 'STALE_TIMESTAMP'],
    ['signed, a key instead', signed, { 'x-toolcap-webhook-key': 'whsec-abcdef123456' }, 'MISSING_SIGNATURE'],
    ['keyed, right', keyed, { 'x-toolcap-webhook-key': 'key-abcdef123456' }, undefined],
    ['keyed, wrong', keyed, { 'x-toolcap-webhook-key': 'key-abcdef12345' }, 'BAD_KEY'],
    ['keyed, none', keyed, {}, 'MISSING_KEY'],
    ['no secret configured (the variable is not set)', {}, { 'x-toolcap-webhook-key': '' }, 'NOT_CONFIGURED'],
  ] as const)('%s', (_why, tool, headers, refusal) => {
    expect(verifyWebhook(tool, new Headers(headers), BODY, NOW)).toBe(refusal);
  });
});

describe('eventKey', () => {
  it.each([
    ['evt-1', 'event:evt-1'],
    [42, 'event:42'],
    ['', undefined],
    [null, undefined],
    [{ id: 1 }, undefined],
    ['a\r\nNats-Msg-Id: other', /^event-sha256:[0-9a-f]{64}$/],
    ['x'.repeat(201), /^event-sha256:[0-9a-f]{64}$/],
    ['ünïcode', /^event-sha256:[0-9a-f]{64}$/],
  ] as const)('%j -> %s', (id, expected) => {
    const key = eventKey(id);
    if (expected instanceof RegExp) expect(key).toMatch(expected);
    else expect(key).toBe(expected);
  });
});

describe('webhookIdempotencyKey: one rule for signed and keyed hooks', () => {
  const hashed = /^sha256:[0-9a-f]{64}$/;
  it.each([
    ['signed, the body names the event', signed, { event_id: 'e1' }, { 'x-toolcap-event-id': 'h1' }, 'event:e1'],
    ['keyed, the body names the event: the header does not split it', keyed, { event_id: 'e1' }, { 'x-toolcap-event-id': 'h1' }, 'event:e1'],
    ['keyed, the body names the event, no header', keyed, { event_id: 'e1' }, {}, 'event:e1'],
    ['keyed, no id in the body: the header', keyed, {}, { 'x-toolcap-event-id': 'h1' }, 'event:h1'],
    ['keyed, no id in the body: an unsafe header is hashed', keyed, {}, { 'x-toolcap-event-id': 'h 1' }, /^event-sha256:[0-9a-f]{64}$/],
    ['signed, no id in the body: never the unsigned header', signed, {}, { 'x-toolcap-event-id': 'h1' }, hashed],
    ['keyed, nothing: the body hash', keyed, {}, {}, hashed],
    ['another pointer', { ...keyed, eventIdPointer: '/meta/id' }, { meta: { id: 7 }, event_id: 'e1' }, {}, 'event:7'],
  ] as const)('%s', (_why, tool, event, headers, expected) => {
    const key = webhookIdempotencyKey(tool, new Headers(headers), event, JSON.stringify(event));
    if (expected instanceof RegExp) expect(key).toMatch(expected);
    else expect(key).toBe(expected);
  });
});

describe('effectiveToleranceSec: a signed request is accepted only while the dispatcher remembers its key', () => {
  it.each([
    ['no bound (inbox, Temporal)', { secret: 's' }, undefined, 300],
    ['a day (JetStream\'s default window)', { secret: 's' }, 86400, 300],
    ['NATS\'s default stream window, 2 minutes', { secret: 's' }, 120, 60],
    ['a tolerance of its own, window wide enough', { secret: 's', toleranceSec: 30 }, 120, 30],
    ['a window under 2 s: the same second only', { secret: 's' }, 1, 0],
  ] as const)('%s', (_why, tool, window, expected) => {
    expect(effectiveToleranceSec(tool, window)).toBe(expected);
  });
  it('a request stamped 61 s ago is stale against a 2-minute window', () => {
    const at = T - 61;
    const headers = new Headers({ 'x-toolcap-timestamp': String(at), 'x-toolcap-signature': signWebhook('whsec-abcdef123456', at, BODY) });
    expect(verifyWebhook(signed, headers, BODY, NOW)).toBeUndefined();
    expect(verifyWebhook({ ...signed, toleranceSec: effectiveToleranceSec(signed, 120) }, headers, BODY, NOW)).toBe('STALE_TIMESTAMP');
  });
});
