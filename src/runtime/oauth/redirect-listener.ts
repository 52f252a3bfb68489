/**
 * The local redirect listener of the connect flow: an HTTP server on
 * 127.0.0.1 that waits for the authorization server to send the browser
 * back with `code` and `state`. Its port and path come from the manifest's
 * `redirectUrl` when that is a loopback http URL (an absent port: an
 * ephemeral one), else an ephemeral port and `/callback` (the OAuth app
 * must then allow that loopback redirect; RFC 8252 lets the port vary).
 *
 * Only a GET on the redirect path whose `state` matches ends the wait;
 * anything else is answered 400/404 and the wait goes on, so a stray or
 * forged request cannot complete (or cancel) a connection.
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isLoopback } from './services.js';

/** Where the listener listens and the redirect URI sent to the server. */
export interface RedirectTarget {
  port: number;
  path: string;
  /** The URL the manifest names, when the listener can serve it; else made from the port. */
  template: URL | undefined;
}

/** The listener's plan for a manifest's redirectUrl; `local` false: it is not loopback http, so a loopback one is used instead. */
export function redirectTarget(redirectUrl: string | undefined): RedirectTarget & { local: boolean } {
  let url: URL | undefined;
  try {
    url = redirectUrl === undefined ? undefined : new URL(redirectUrl);
  } catch {
    url = undefined;
  }
  if (url && url.protocol === 'http:' && isLoopback(url.hostname)) {
    return { port: url.port === '' ? 0 : Number(url.port), path: url.pathname, template: url, local: true };
  }
  return { port: 0, path: '/callback', template: undefined, local: false };
}

/** A running listener. */
export interface RedirectListener {
  /** The exact redirect_uri to send in the authorization and token requests. */
  redirectUri: string;
  /**
   * Resolves with the callback's query once a matching callback arrived and
   * `finish` settled it; `finish` answers the browser with a page. Rejects on
   * timeout, abort or when `finish` throws.
   */
  wait(finish: (params: URLSearchParams) => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/** The state a response carries is the one sent, compared in constant time (hashes: equal lengths). */
function sameState(got: string | null, sent: string): boolean {
  if (got === null) return false;
  const digest = (v: string) => createHash('sha256').update(v).digest();
  return timingSafeEqual(digest(got), digest(sent));
}

/** Start listening on 127.0.0.1; rejects when the port is taken. */
export async function listenForRedirect(target: RedirectTarget, state: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<RedirectListener> {
  let onCallback: ((params: URLSearchParams, res: ServerResponse) => void) | undefined;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== target.path) return page(res, 404, 'Not the toolcap OAuth redirect.');
    if (!sameState(url.searchParams.get('state'), state)) return page(res, 400, 'This authorization response does not belong to the connection toolcap is waiting for (state mismatch); it was ignored.');
    if (!onCallback) return page(res, 409, 'toolcap is not waiting for an authorization now.');
    const handle = onCallback;
    onCallback = undefined;
    handle(url.searchParams, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(target.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let redirectUri: string;
  if (target.template) {
    const u = new URL(target.template.href);
    u.port = String(port);
    redirectUri = target.template.port === '' ? u.href : target.template.href;
  } else {
    redirectUri = `http://127.0.0.1:${port}${target.path}`;
  }
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    redirectUri,
    close,
    wait(finish) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => stop(new Error(`no authorization arrived at ${redirectUri} within ${Math.round(options.timeoutMs / 1000)} s`)), options.timeoutMs);
        const aborted = () => stop(new Error('the connection was cancelled'));
        const stop = (error: Error | undefined) => {
          clearTimeout(timer);
          options.signal?.removeEventListener('abort', aborted);
          onCallback = undefined;
          if (error) reject(error);
          else resolve();
        };
        if (options.signal?.aborted) return aborted();
        options.signal?.addEventListener('abort', aborted, { once: true });
        onCallback = (params, res) => {
          finish(params).then(
            () => {
              page(res, 200, 'toolcap is connected. You can close this tab.');
              stop(undefined);
            },
            (error: unknown) => {
              page(res, 400, 'toolcap could not connect; the terminal says why.');
              stop(error instanceof Error ? error : new Error(String(error)));
            },
          );
        };
      });
    },
  };
}

function page(res: ServerResponse, status: number, text: string): void {
  const html = `<!doctype html><meta charset="utf-8"><title>toolcap</title><p>${text.replace(/[<>&]/g, '')}</p>`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
  res.end(html);
}
