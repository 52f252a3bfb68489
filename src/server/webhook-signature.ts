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
 * @module
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

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
  /** Where the event's id is (JSON pointer), when no `X-Toolcap-Event-Id` header is sent. @default '/event_id' */
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

/** Check one request against its tool's settings. */
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
