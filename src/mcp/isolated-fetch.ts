/**
 * A `fetch` for the SDK's Streamable HTTP client transport that gives every
 * request its own AbortSignal.
 *
 * The transport passes one connection-wide signal to every request, and
 * Node's fetch (undici) adds an abort listener to it per request that goes
 * only when the request object is garbage collected: under steady calls the
 * signal holds thousands of listeners (the "3523 abort listeners added to
 * [AbortSignal]" warning of the gateway benchmark), each new one added after
 * a walk of the list. Here the shared signal gets one listener per request
 * in flight, forwarding an abort to the request's own signal, removed when
 * the answer is read: a JSON answer once fetch resolves (the transport reads
 * it at once), an event stream when the stream ends. Closing the transport
 * still aborts every request and stream in flight.
 *
 * A call the SDK gives up on (its caller's signal, its timeout) is only
 * rejected and followed by a `notifications/cancelled` POST: the request
 * carrying it goes on, on its own connection, for as long as the server
 * keeps it (an untrusted server trickling its answer a byte at a time keeps
 * it for ever). Here that notification aborts the request in flight with
 * the id it names.
 * @module
 */
import { requestIds } from './request-ids.js';

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** The id a `notifications/cancelled` body names, if it is one. */
function cancelledId(body: string): string | number | undefined {
  if (!body.includes('"notifications/cancelled"')) return undefined;
  try {
    const message = JSON.parse(body) as { method?: unknown; params?: { requestId?: unknown } };
    const id = message.method === 'notifications/cancelled' ? message.params?.requestId : undefined;
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Wrap `base` (the global fetch by default) so each request gets a private
 * signal bridged from the one it was given.
 * @example new StreamableHTTPClientTransport(url, { fetch: isolatedSignalFetch() })
 */
export function isolatedSignalFetch(base: FetchLike = (url, init) => fetch(url, init)): FetchLike {
  /** The requests in flight with a string body, which a cancellation may name. */
  const inFlight = new Map<AbortController, string>();
  return async (url, init) => {
    const sentBody = typeof init?.body === 'string' ? init.body : undefined;
    const cancelled = sentBody === undefined ? undefined : cancelledId(sentBody);
    if (cancelled !== undefined) {
      for (const [controller, sent] of inFlight) if (requestIds(sent).includes(cancelled)) controller.abort(new DOMException('The call was cancelled.', 'AbortError'));
    }
    const parent = init?.signal ?? undefined;
    if (!parent || parent.aborted) return base(url, init);
    const own = new AbortController();
    const forward = () => own.abort(parent.reason);
    parent.addEventListener('abort', forward, { once: true });
    if (sentBody !== undefined) inFlight.set(own, sentBody);
    const release = () => {
      parent.removeEventListener('abort', forward);
      inFlight.delete(own);
    };
    let response: Response;
    try {
      response = await base(url, { ...init, signal: own.signal });
    } catch (error) {
      release();
      throw error;
    }
    // the content type first: a JSON answer's body is not touched here (a lightweight Response, such as the one the
    // Node adapter of Hono installs as the global, builds its whole native Response the first time its body is read)
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream') || response.body === null) {
      release();
      return response;
    }
    const body = response.body;
    // an event stream is read for as long as it lasts: keep the bridge until it ends, errs or is cancelled
    const reader = body.getReader();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            release();
            controller.close();
          } else controller.enqueue(value);
        } catch (error) {
          release();
          controller.error(error);
        }
      },
      async cancel(reason) {
        release();
        await reader.cancel(reason);
      },
    });
    return new Response(stream, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
