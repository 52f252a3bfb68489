/**
 * PostgreSQL failures in plain words: every connection or query error becomes
 * a {@link StoreUnavailableError} naming the server, what was being done, and
 * why (the password never appears: callers pass the redacted location).
 * @module
 */
import { errorMessage } from '../model/errors.js';
import { StoreUnavailableError, StoreVersionError } from './types.js';

/** `host:port` of a PostgreSQL URL, for messages. */
export function hostPort(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}`;
  } catch {
    return 'the configured server';
  }
}

function explain(err: unknown, server: string): string | undefined {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  if (code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ECONNRESET' || code === 'EPIPE') return `PostgreSQL at ${server} is not reachable`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `PostgreSQL host of ${server} was not found`;
  if (code === 'ETIMEDOUT' || /timeout/i.test(message)) return `PostgreSQL at ${server} did not answer in time`;
  if (/Connection terminated/i.test(message)) return `the connection to PostgreSQL at ${server} was lost`;
  if (code.startsWith('08') || code.startsWith('57P')) return `the connection to PostgreSQL at ${server} failed or the server is shutting down`;
  if (code.startsWith('28')) return `PostgreSQL at ${server} refused the login`;
  if (code === '3D000') return `the database does not exist on PostgreSQL at ${server}`;
  if (code === '53100') return `PostgreSQL at ${server} is out of disk space`;
  if (code.startsWith('53')) return `PostgreSQL at ${server} is out of resources`;
  if (code === '25006') return `PostgreSQL at ${server} is read-only`;
  return undefined;
}

/** The error a failed PostgreSQL operation rejects with (store errors pass through unchanged). */
export function unavailable(location: string, server: string, what: string, err: unknown): Error {
  if (err instanceof StoreUnavailableError || err instanceof StoreVersionError) return err;
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const message = errorMessage(err);
  const plain = explain(err, server);
  const text = plain
    ? `${plain} (${code ? `${code}: ` : ''}${message}); ${what} failed (store ${location})`
    : `PostgreSQL store ${location}: ${what} failed: ${message}${code ? ` (${code})` : ''}`;
  return new StoreUnavailableError(text, { cause: err });
}
