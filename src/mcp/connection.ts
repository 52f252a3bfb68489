/**
 * The connection lifecycle of one MCP server: connect (a contained stdio
 * child process, see ./stdio-client.ts, or Streamable HTTP), then discover
 * its tools; on failure, or when a server that was up drops (its process
 * exits, its transport closes), mark it `down`, keep its last error (with
 * the tail of a stdio server's stderr) and reconnect in the background with
 * exponential backoff (`backoffDelay()`: the wait doubles per failure up to
 * the cap, and a random share of up to half of it is taken off). A
 * `notifications/tools/list_changed` re-discovers at once.
 * @module
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../model/errors.js';
import { backoffDelay, type BackoffPolicy } from '../runtime/backoff.js';
import { DEFAULT_MAX_BODY_BYTES } from '../runtime/containment/body-limit.js';
import { failureExcerpt, lastLines, serverRedaction } from './call-outcome.js';
import { queueDiscovery } from './discovery-refresh.js';
import type { ClientsContext, McpClientsOptions, ServerEntry } from './server-entry.js';
import { resolveServerReferences } from './server-references.js';
import { ContainedStdioClientTransport, serverEnv } from './stdio-client.js';
import { upstreamFetch } from './upstream-fetch.js';

/** How much of a stdio server's stderr is kept for error messages, in characters. */
export const STDERR_TAIL = 4096;
/** Longest wait for a server's `initialize` answer. */
const CONNECT_TIMEOUT_MS = 30_000;

/**
 * The reconnect policy: the wait for failure n is `initialMs * 2^(n-1)`,
 * capped at `maxMs`, times 1 ± 0.5; drawn with {@link halfRandom}, only the
 * lower half of that spread is used, so the wait lies in [full/2, full] and
 * never passes the cap.
 */
export function reconnectPolicy(backoff: McpClientsOptions['backoff']): BackoffPolicy {
  return { baseMs: backoff?.initialMs ?? 1000, factor: 2, capMs: backoff?.maxMs ?? 60_000, jitter: 0.5, threshold: 1 };
}

/** A uniform draw in [0, 0.5): jitter that only ever shortens a wait. */
const halfRandom = () => Math.random() / 2;

/** Connect the server unless closed; a connect already in progress is joined, not repeated. Never rejects. */
export function connect(ctx: ClientsContext, e: ServerEntry): Promise<void> {
  if (ctx.closed) return Promise.resolve();
  e.connecting ??= doConnect(ctx, e).finally(() => {
    e.connecting = undefined;
  });
  return e.connecting;
}

async function doConnect(ctx: ClientsContext, e: ServerEntry): Promise<void> {
  clearTimeout(e.retryTimer);
  e.retryTimer = undefined;
  e.state = 'connecting';
  e.stderr = '';
  delete e.closedBy;
  const client = new Client(ctx.options.clientInfo ?? { name: 'toolcap', version: '0' }, { capabilities: {} });
  try {
    let transport: ContainedStdioClientTransport | StreamableHTTPClientTransport | SSEClientTransport;
    // ${NAME} / { env: NAME } references resolve now, from the environment: the config holds no secret
    const cfg = resolveServerReferences(e.config);
    if (cfg.transport === 'stdio') {
      if (cfg.command === undefined || cfg.command === '') throw new Error('no command is configured');
      transport = new ContainedStdioClientTransport({
        command: cfg.command,
        args: cfg.args,
        env: serverEnv(cfg),
        ...(cfg.cwd !== undefined ? { cwd: cfg.cwd } : {}),
        onStderr: (text) => {
          e.stderr = (e.stderr + text).slice(-STDERR_TAIL);
        },
        ...(ctx.options.killGraceMs !== undefined ? { killGraceMs: ctx.options.killGraceMs } : {}),
      });
    } else {
      if (cfg.url === undefined || cfg.url === '') throw new Error('no url is configured');
      // under the egress policy, answers size-limited, one kept-alive pool per server (upstream-fetch.ts); requests on undici's
      // request(), not WHATWG fetch (lean-fetch.ts), each with a private signal (isolated-fetch.ts)
      const up = upstreamFetch(e.config.name, cfg.url, {
        ...(ctx.options.egress ? { egress: ctx.options.egress } : {}),
        ...(ctx.options.resolver ? { resolver: ctx.options.resolver } : {}),
        maxResponseBytes: ctx.config.maxResponseBytes ?? DEFAULT_MAX_BODY_BYTES,
        credentialHeaders: Object.keys(cfg.headers),
        onOversize: (error) => {
          ctx.options.warn?.(error.message);
          // HTTP+SSE answers every call on its one stream, and which answer was cut cannot be told: the calls in flight fail now,
          // not at their timeouts; so does the initialize of a connect in progress (closing its client rejects it)
          if (cfg.transport === 'sse' && error.part === 'event' && (e.client === client || e.pending === client)) {
            e.closedBy = error;
            void client.close().catch(() => {});
          }
        },
      });
      // the previous connect's pool: its client is closed by now
      e.upstream?.close().catch(() => {});
      e.upstream = up;
      transport =
        cfg.transport === 'sse'
          ? new SSEClientTransport(new URL(cfg.url), {
              requestInit: { headers: { ...cfg.headers } },
              fetch: up.fetch,
              eventSourceInit: { fetch: (url, init) => up.fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...cfg.headers } }) },
            })
          : new StreamableHTTPClientTransport(new URL(cfg.url), { requestInit: { headers: { ...cfg.headers } }, fetch: up.fetch });
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (e.client === client) void queueDiscovery(ctx, e);
    });
    client.onclose = () => onClose(ctx, e, client);
    e.pending = client;
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    e.pending = undefined;
    if (ctx.closed) {
      await client.close().catch(() => {});
      return;
    }
    const info = client.getServerVersion();
    if (info !== undefined) e.serverInfo = { name: info.name, version: info.version };
    e.client = client;
    e.state = 'up';
    e.failures = 0;
    delete e.backoffUntil;
    delete e.lastError;
  } catch (err) {
    e.pending = undefined;
    await client.close().catch(() => {});
    // closedBy: set by onOversize while the connect waited (the narrowing from `delete` above does not see that)
    const closedBy = (e as ServerEntry).closedBy;
    failed(ctx, e, `could not connect: ${closedBy?.message ?? describe(e, err)}`);
    return;
  }
  await queueDiscovery(ctx, e);
}

/** A connect error in words: a missing command named, the cause added, and the stderr tail. */
function describe(e: ServerEntry, err: unknown): string {
  let text = errorMessage(err);
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  if (code === 'ENOENT' && e.config.transport === 'stdio') text = `command not found: ${e.config.command} (${text})`;
  else if (err instanceof Error && err.cause instanceof Error && !text.includes(err.cause.message)) text += ` (${err.cause.message})`;
  const tail = e.stderr.trim();
  return tail === '' ? text : `${text}; stderr: ${lastLines(tail)}`;
}

function onClose(ctx: ClientsContext, e: ServerEntry, client: Client): void {
  if (e.client !== client || ctx.closed) return;
  e.client = undefined;
  clearTimeout(e.refreshTimer);
  failed(ctx, e, e.config.transport === 'stdio' ? `server exited${e.stderr.trim() === '' ? '' : `; stderr: ${lastLines(e.stderr)}`}` : (e.closedBy?.message ?? 'connection closed'));
}

/** Mark a server down and schedule the next attempt. */
function failed(ctx: ClientsContext, e: ServerEntry, why: string): void {
  e.state = 'down';
  // what a connection failure says may be the server's own words (an HTTP error's body): redacted, then cut
  e.lastError = failureExcerpt(why, serverRedaction(e.config));
  if (ctx.closed) return;
  e.failures += 1;
  const delay = backoffDelay(e.failures, ctx.reconnect, halfRandom);
  e.backoffUntil = ctx.clock() + delay;
  ctx.options.warn?.(`MCP server "${e.config.name}" is down (${e.lastError}); retrying in ${delay} ms`);
  clearTimeout(e.retryTimer);
  e.retryTimer = setTimeout(() => {
    e.retryTimer = undefined;
    void connect(ctx, e);
  }, delay);
  e.retryTimer.unref();
}

/** Stop the server's timers, cut short a connect in progress, and close its client. Call after setting `ctx.closed`. */
export async function disconnect(e: ServerEntry): Promise<void> {
  clearTimeout(e.retryTimer);
  clearTimeout(e.refreshTimer);
  // A connect in progress is cut short: closing its client rejects the pending initialize.
  await e.pending?.close().catch(() => {});
  await e.connecting?.catch(() => {});
  const client = e.client;
  delete e.client;
  e.state = 'down';
  await client?.close().catch(() => {});
  const upstream = e.upstream;
  delete e.upstream;
  await upstream?.close().catch(() => {});
}
