/**
 * An undici dispatcher that enforces an {@link EgressGuard} on every
 * connection: the host is resolved and checked by the guard, and the socket
 * is opened to the checked address itself (TLS still verifies the
 * certificate against the host name). There is no second DNS lookup between
 * the check and the connect, so DNS rebinding cannot swap the address.
 *
 * Node 20's global `fetch` has no public Agent class, hence the `undici`
 * package (same major as the copy bundled in Node 20). Use it with undici's
 * `fetch` (`import { fetch } from 'undici'`) or with the global `fetch`
 * (`fetch(url, { dispatcher })`, which Node accepts). Each redirect hop opens
 * its connection through the dispatcher too, so every hop is checked; the
 * http provider should still follow redirects itself (`redirect: 'manual'`)
 * to apply ./redirects.ts to credentials.
 * @module
 */
import { Agent, buildConnector } from 'undici';
import { EgressGuard } from './egress.js';

/** Options of {@link guardedDispatcher}. */
export interface GuardedDispatcherOptions {
  /** Milliseconds to establish a connection. @default 10000 */
  connectTimeoutMs?: number;
}

/**
 * A dispatcher whose every connection goes through `guard.resolve()`.
 * A refused connection fails the request with the guard's
 * {@link EgressError} as the `cause` of fetch's `TypeError`.
 * @example
 * const dispatcher = guardedDispatcher(new EgressGuard({ allow: ['api.example.com'] }));
 * await fetch('https://api.example.com/v1', { dispatcher });
 */
export function guardedDispatcher(guard: EgressGuard, options: GuardedDispatcherOptions = {}): Agent {
  const connector = buildConnector({ timeout: options.connectTimeoutMs ?? 10_000 });
  return new Agent({
    connect(opts, callback) {
      guard.resolve(opts.hostname).then(
        (pinned) => {
          const servername = opts.servername ?? (pinned.host === pinned.address ? undefined : pinned.host);
          connector({ ...opts, hostname: pinned.address, ...(servername !== undefined ? { servername } : {}) }, callback);
        },
        (err: Error) => callback(err, null),
      );
    },
  });
}
