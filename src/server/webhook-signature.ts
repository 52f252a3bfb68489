/**
 * How a webhook proves who sent it, per tool: an HMAC signature or a shared
 * key, both compared in constant time.
 *
 * - Signature: `X-Toolcap-Timestamp: <unix seconds>` and
 *   `X-Toolcap-Signature: sha256=<hex>`, the HMAC-SHA256 with the tool's
 *   secret of `<timestamp>.<raw body>`. A timestamp further than the
 *   tolerance (default 300 s) from now is refused, so a captured request
 *   cannot be replayed later (within the window the idempotency key drops it).
 * - Key: `X-Toolcap-Webhook-Key: <key>`.
 *
 * And which key names the event, for both ({@link webhookIdempotencyKey}):
 * the one rule the hooks route dedupes by (the dispatcher drops a key it
 * has seen for the workflow).
 * @module
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { splitPointer } from '../model/diagnostics.js';

/** How one tool's webhook is authenticated and read (the config's `webhooks.tools.<toolId>`, secrets resolved). */
export interface WebhookTool {
  /** The HMAC secret (from the env var `secretEnv` names). */
  secret?: string;
  /** The shared key (from the env var `keyEnv` names), when not signed. */
  key?: string;
  /** Largest clock difference of a signed request, seconds. @default 300 */
  toleranceSec?: number;
  /** Where the workflow id is in the event (JSON pointer). @default '/workflowId' */
  workflowIdPointer?: string;
  /** Where the event's id is (JSON pointer): the idempotency key, signed or keyed. @default '/event_id' */
  eventIdPointer?: string;
}

export const SIGNATURE_HEADER = 'x-toolcap-signature';
export const TIMESTAMP_HEADER = 'x-toolcap-timestamp';
export const KEY_HEADER = 'x-toolcap-webhook-key';
export const EVENT_ID_HEADER = 'x-toolcap-event-id';

/** Why a webhook was refused; undefined when it passed. */
export type WebhookRefusal = 'MISSING_SIGNATURE' | 'BAD_SIGNATURE' | 'STALE_TIMESTAMP' | 'MISSING_KEY' | 'BAD_KEY' | 'NOT_CONFIGURED';

/**
 * The signature header value of a body (what a sender computes).
 * @example signWebhook('s3cret', 1700000000, '{"a":1}') // 'sha256=…'
 */
export function signWebhook(secret: string, timestamp: number, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}

/** Equal in constant time, whatever the lengths (both sides hashed first). */
function sameSecret(a: string, b: string): boolean {
  const h = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(h(a), h(b));
}

/**
 * The timestamp tolerance a signed request is held to: the tool's, cut to
 * half the dispatcher's dedupe window when that is shorter. A request
 * stamped `ts` is accepted from `ts - tolerance` to `ts + tolerance`, so two
 * deliveries of it can be up to twice the tolerance apart; the dispatcher
 * must still remember the first one's key then, or the second is a new
 * dispatch.
 * @example effectiveToleranceSec({ secret: 's', toleranceSec: 300 }, 120) // 60
 */
export function effectiveToleranceSec(tool: WebhookTool, dedupeWindowSec?: number): number {
  const tolerance = tool.toleranceSec ?? 300;
  return dedupeWindowSec === undefined ? tolerance : Math.min(tolerance, Math.floor(dedupeWindowSec / 2));
}

/** Check one request against its tool's settings (a signed one with the tolerance `toleranceSec` says, see {@link effectiveToleranceSec}). */
export function verifyWebhook(tool: WebhookTool, headers: Headers, rawBody: string, now: Date): WebhookRefusal | undefined {
  if (tool.secret !== undefined) {
    const signature = headers.get(SIGNATURE_HEADER);
    const stamp = headers.get(TIMESTAMP_HEADER);
    if (signature === null || stamp === null) return 'MISSING_SIGNATURE';
    const seconds = /^\d{1,12}$/.test(stamp) ? Number(stamp) : Number.NaN;
    if (!Number.isFinite(seconds)) return 'BAD_SIGNATURE';
    if (Math.abs(now.getTime() / 1000 - seconds) > (tool.toleranceSec ?? 300)) return 'STALE_TIMESTAMP';
    return sameSecret(signature.trim().toLowerCase(), signWebhook(tool.secret, seconds, rawBody)) ? undefined : 'BAD_SIGNATURE';
  }
  if (tool.key !== undefined) {
    const key = headers.get(KEY_HEADER);
    if (key === null) return 'MISSING_KEY';
    return sameSecret(key, tool.key) ? undefined : 'BAD_KEY';
  }
  return 'NOT_CONFIGURED';
}

/** The value at a JSON pointer of a parsed document; undefined when the path is not there. */
export const valueAtPointer = (doc: unknown, pointer: string): unknown =>
  splitPointer(pointer).reduce<unknown>((v, t) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[t] : undefined), doc);

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * The key of an event id: `event:<id>` for up to 200 printable ASCII
 * characters (it travels in headers, e.g. JetStream's Nats-Msg-Id), else
 * `event-sha256:<hex>` of it; undefined when there is no usable id.
 */
export function eventKey(id: unknown): string | undefined {
  if (typeof id === 'number' && Number.isFinite(id)) return `event:${id}`;
  if (typeof id !== 'string' || id === '') return undefined;
  return /^[\x21-\x7e]{1,200}$/.test(id) ? `event:${id}` : `event-sha256:${sha256(id)}`;
}

/**
 * The idempotency key of a verified webhook, signed or keyed alike: the
 * event's id in the body (`eventIdPointer`) first, so one event has one key
 * however often and through whatever path it is delivered; else, for a
 * keyed hook only, the `X-Toolcap-Event-Id` header (a signature does not
 * cover it: a captured signed request could be sent again under fresh ids;
 * a key covers the whole request, but the header must not split an event
 * the body already names); else `sha256:<hex>` of the raw body.
 */
export function webhookIdempotencyKey(tool: WebhookTool, headers: Headers, event: unknown, rawBody: string): string {
  const fromBody = eventKey(valueAtPointer(event, tool.eventIdPointer ?? '/event_id'));
  if (fromBody !== undefined) return fromBody;
  const fromHeader = tool.secret === undefined ? eventKey(headers.get(EVENT_ID_HEADER)) : undefined;
  return fromHeader ?? `sha256:${sha256(rawBody)}`;
}
