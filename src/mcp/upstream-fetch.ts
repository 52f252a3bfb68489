/**
 * The `fetch` of one upstream MCP server (Streamable HTTP or HTTP+SSE):
 * its requests go out under the egress policy, as every other outbound
 * request of toolcap does (docs/security.md, "The upstream MCP hop").
 *
 * - The host of the server's configured `url` is allowed: the operator
 *   named it, as a manifest's author names a base URL
 *   (`defaultEgressAllow()`: a loopback or private IP literal, and
 *   `localhost`, are allowed as written; a metadata address or host never).
 *   The entries of the config's `egress.allow` are allowed too, for the
 *   hosts and addresses a server may redirect to.
 * - Every connection goes through `guardedDispatcher()`: each DNS answer is
 *   checked (a host name that resolves to a loopback, private, link-local or
 *   metadata address is refused unless `egress.allow` lists that address),
 *   and the socket opens to the address that was checked. Connections are
 *   pooled per server and kept alive, as before.
 * - Every redirect hop is checked by name, and credentials never follow a
 *   hop to another origin (./upstream-redirects.ts).
 * - An answer is read up to `mcp.maxResponseBytes`: a larger JSON body, or
 *   one larger event-stream message, fails the request with an
 *   {@link UpstreamTooLargeError} and drops its connection (./lean-fetch.ts).
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Agent } from 'undici';
import { DEFAULT_MAX_BODY_BYTES } from '../runtime/containment/body-limit.js';
import { guardedDispatcher } from '../runtime/containment/dispatcher.js';
import { defaultEgressAllow, EgressGuard, type Resolver } from '../runtime/containment/egress.js';
import type { ProviderEgress } from '../runtime/providers/types.js';
import { isolatedSignalFetch } from './isolated-fetch.js';
import { leanFetch } from './lean-fetch.js';
import { UpstreamTooLargeError } from './upstream-errors.js';

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** What {@link upstreamFetch} needs besides the server's URL. */
export interface UpstreamFetchOptions {
  /** The config's `egress` section: its `allow` entries are reachable too; `crossOriginRedirects` applies. */
  egress?: ProviderEgress;
  /** Largest answer body, and largest single event-stream message, in bytes. @default DEFAULT_MAX_BODY_BYTES */
  maxResponseBytes?: number;
  /** DNS lookup (tests inject one). @default node:dns/promises lookup */
  resolver?: Resolver;
  /** Headers whose values are the server's credentials (its configured `headers`): never sent to another origin. */
  credentialHeaders?: readonly string[];
  /** Told of every answer past the limit. */
  onOversize?: (error: UpstreamTooLargeError) => void;
}

/** A server's fetch and the connection pool behind it. */
export interface UpstreamFetch {
  fetch: FetchLike;
  guard: EgressGuard;
  /**
   * The size refusal behind a request's error, when the error is the JSON-RPC answer toolcap wrote itself for an
   * event-stream message past the limit (the SDK turns it into an McpError; a server cannot write one that matches).
   */
  oversizeAnswer(err: unknown): UpstreamTooLargeError | undefined;
  /** End the pool: its kept-alive connections and anything still on them (call once the server's client is closed). */
  close(): Promise<void>;
}

/** The allow list of a server's hop: its URL's host, and the config's `egress.allow`. */
export function upstreamAllow(url: string, egress: ProviderEgress | undefined): string[] {
  return [...new Set([...defaultEgressAllow([url]), ...(egress?.allow ?? [])])];
}

/**
 * The guarded, size-limited fetch for the server at `url`, named `name`.
 * @throws TypeError when an `egress.allow` entry is not one the guard reads (the config reader has refused it already)
 * @example const up = upstreamFetch('docs', 'https://mcp.example.com/mcp', { maxResponseBytes: 1 << 20 });
 * new StreamableHTTPClientTransport(new URL(url), { fetch: up.fetch }); … await up.close();
 */
export function upstreamFetch(name: string, url: string, options: UpstreamFetchOptions = {}): UpstreamFetch {
  const guard = new EgressGuard({ allow: upstreamAllow(url, options.egress) }, options.resolver ? { resolver: options.resolver } : {});
  const dispatcher: Agent = guardedDispatcher(guard);
  const max = options.maxResponseBytes ?? DEFAULT_MAX_BODY_BYTES;
  const upstream = `MCP server "${name}"`;
  // known to this process only: the answers that carry it are toolcap's own
  const marker = randomUUID();
  const fetch = isolatedSignalFetch(
    leanFetch({
      dispatcher,
      egress: guard,
      maxResponseBytes: max,
      crossOriginRedirects: options.egress?.crossOriginRedirects ?? 'drop-credentials',
      credentialHeaders: options.credentialHeaders ?? [],
      upstream,
      oversizeMarker: marker,
      ...(options.onOversize ? { onOversize: options.onOversize } : {}),
    }),
  );
  const oversizeAnswer = (err: unknown): UpstreamTooLargeError | undefined => {
    const data: unknown = typeof err === 'object' && err !== null ? (err as { data?: unknown }).data : undefined;
    const ours = typeof data === 'object' && data !== null && (data as { oversize?: unknown }).oversize === marker;
    return ours ? new UpstreamTooLargeError(upstream, max, 'event', { cause: err }) : undefined;
  };
  return { fetch, guard, oversizeAnswer, close: () => dispatcher.destroy() };
}
