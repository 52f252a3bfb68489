/**
 * `toolcap serve [paths...] [--config F] [--port N] [--host H] [--insecure]`:
 * the registry as an HTTP(S) service, reloading when its files change. Runs
 * until SIGINT or SIGTERM (or, in-process, until `io.signal` aborts), then
 * stops listening, waits for requests in flight and exits 0.
 *
 * Without credentials configured (local mode) every request is the local
 * principal, so a bind beyond loopback is refused unless `--insecure`.
 * @module
 */
import { shellWord } from '../model/shell-word.js';
import type { ReloadEvent } from '../registry/registry.js';
import { DEFAULT_SERVER } from '../config/config.js';
import { bindNames, isLoopback } from '../config/identity.js';
import { consoleLoginOptions } from '../config/sections/console-login.js';
import { createApi } from '../server/app.js';
import { listen, type RunningServer } from '../server/listen.js';
import { toolcapVersion } from '../model/version.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { invocation } from './invocation.js';
import { logLine, type CliIO } from './io.js';
import { renderDiagnostic, summarize, warningDigest } from './render.js';
import { openToolcap, readPlan } from './open.js';
import type { LoadFlags } from './shared.js';
import { mcpHttpHandler, type McpHttpHandler } from '../mcp/http.js';
import { serveWebhooks } from './serve-webhooks.js';

export interface ServeFlags extends LoadFlags {
  port?: string;
  host?: string;
  /** --no-watch sets false. @default true */
  watch?: boolean;
  /** Listen beyond loopback although nothing is authenticated. @default false */
  insecure?: boolean;
}

/** A signal that aborts on the first SIGINT or SIGTERM; `release` removes the handlers. */
function processStop(): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    signal: controller.signal,
    release: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

/** The log lines of a reload (exported for its test). */
export function describeReload(event: ReloadEvent, io: CliIO): void {
  const at = event.at.slice(11, 19);
  if (event.kind === 'reloaded') {
    const changed = event.changed.length > 0 ? ` (${event.changed.join(', ')})` : '';
    // changed paths are file names from a watched folder: escaped as every log line is
    io.stderr(`${logLine(`[${at}] reloaded: now serving version ${event.version}${changed}`)}\n`);
  } else if (event.kind === 'failed') {
    const errors = event.diagnostics.filter((d) => d.severity === 'error');
    const what = event.exception ?? (event.unreadable ? 'a path cannot be read' : `${errors.length} error${errors.length === 1 ? '' : 's'}`);
    io.stderr(`${logLine(`[${at}] reload failed (${what}); still serving version ${event.version}. Fix the files and save again.`)}\n`);
    for (const d of event.diagnostics) if (d.severity === 'error') io.stderr(`${renderDiagnostic(d, new Map())}\n`);
  }
}

export async function serveCommand(paths: string[], flags: ServeFlags, io: CliIO & { signal?: AbortSignal }): Promise<ExitCode> {
  const plan = readPlan(paths, flags, io);
  if (typeof plan === 'number') return plan;
  const port = flags.port === undefined ? (plan.config?.server.port ?? DEFAULT_SERVER.port) : /^\d+$/.test(flags.port) ? Number(flags.port) : Number.NaN;
  if (!(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    io.stderr(`toolcap: --port: "${flags.port}" is not a port number (0 to 65535; 0 picks a free one)\n`);
    return EXIT.USAGE;
  }
  const host = flags.host ?? plan.config?.server.host ?? DEFAULT_SERVER.host;
  const authOn = plan.config?.auth.enabled === true;
  if (!authOn && !isLoopback(host)) {
    if (!flags.insecure) {
      io.stderr(
        `toolcap: refusing to listen on ${host}: no credentials are configured, so every request would act as the local principal.\n` +
          '  Configure auth (auth: { apiKeys: { enabled: true } }, then toolcap keys create; or auth.oidc), listen on 127.0.0.1,\n' +
          '  or pass --insecure to serve anyway (anyone who can reach the port can call, approve and read the audit log).\n',
      );
      return EXIT.USAGE;
    }
    io.stderr(
      `\n!!! toolcap: INSECURE: listening on ${host} with no authentication (--insecure).\n` +
        '!!! Anyone who can reach this port acts as the local principal: calls tools, approves, reads the audit log.\n\n',
    );
  }

  const setup = await openToolcap(plan, io, { seedHealth: true, watch: flags.watch ?? true });
  if (typeof setup === 'number') return setup;
  const { registry, runtime, store, identity } = setup;
  const hooks = await serveWebhooks(plan.config, io, (t) => runtime.redactor.redactText(t));
  if (typeof hooks === 'number') {
    await setup.close();
    return hooks;
  }
  const sessions = plan.config?.mcp.sessions;
  // what goes to the log passes the runtime's redactor, as every other sink does, and is one line (io.ts logLine)
  const quiet = (line: string) => io.stderr(`toolcap: ${logLine(runtime.redactor.redactText(line))}\n`);
  const gateway: McpHttpHandler = mcpHttpHandler({
    registry,
    runtime,
    version: toolcapVersion(),
    warn: quiet,
    onError: (error) => io.stderr(`toolcap: /mcp failed (a toolcap bug): ${logLine(runtime.redactor.redactText(error instanceof Error ? (error.stack ?? error.message) : String(error)))}\n`),
    ...(sessions ? { sessions } : {}),
    ...(plan.config ? { configPath: plan.config.file, ranking: plan.config.ranking, health: setup.health } : {}),
    command: invocation(),
    ...(plan.config?.mcp.tools ? { tools: plan.config.mcp.tools } : {}),
    ...(plan.config?.mcp.names ? { names: plan.config.mcp.names } : {}),
  });
  const snap = registry.snapshot();
  io.stderr(`${summarize(snap.tools.length, snap.diagnostics)}\n`);
  const rerun = [invocation(), 'validate', ...(flags.config !== undefined ? ['--config', shellWord(flags.config)] : []), ...paths.map(shellWord)].join(' ');
  for (const line of warningDigest(snap.diagnostics, rerun)) io.stderr(`${line}\n`);
  // MCP clients connected to /mcp hear of reloads from their own gateway (it subscribes to the registry)
  registry.subscribe((event) => describeReload(event, io));

  let server: RunningServer;
  const serverConfig = plan.config?.server;
  const consoleLogin = plan.config?.auth.consoleLogin;
  const oidcIssuer = plan.config?.auth.config.oidc?.issuer;
  /** The console's browser sign-in, its redirect URI derived from the bound URL (never a request's Host). */
  const browserSignIn = (bound: number) => {
    if (!consoleLogin || oidcIssuer === undefined) return {};
    const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
    const made = consoleLoginOptions(consoleLogin, oidcIssuer, `${serverConfig?.tls ? 'https' : 'http'}://${shown}:${bound}`, { ...(io.env ?? process.env) });
    if (made.warning) io.stderr(`toolcap: ${made.warning}\n`);
    return made.options ? { oidcLogin: made.options } : {};
  };
  try {
    const ranking = plan.config?.ranking ?? {};
    server = await listen((bound) => {
      const names = bindNames(host, bound);
      return createApi(registry, {
        runtime,
        learned: setup.learned,
        health: setup.health,
        mcp: gateway,
        version: toolcapVersion(),
        auth: identity.api,
        warn: quiet,
        onError: (error, request) =>
          io.stderr(`toolcap: ${request.method} ${new URL(request.url).pathname} failed (a toolcap bug): ${logLine(runtime.redactor.redactText(error instanceof Error ? (error.stack ?? error.message) : String(error)))}\n`),
        allowedHosts: serverConfig?.allowedHosts ?? names.allowedHosts,
        allowedOrigins: serverConfig?.allowedOrigins ?? names.allowedOrigins,
        ...(ranking.weights ? { weights: ranking.weights } : {}),
        ...(ranking.taskRisk !== undefined ? { taskRisk: ranking.taskRisk } : {}),
        ...(hooks.options ? { webhooks: hooks.options } : {}),
        console: {
          layers: () => setup.layers,
          // a server's last error carries the tail of its stderr: it passes the redactor like every other sink
          mcpServers: () => (setup.mcp?.status() ?? []).map((s) => (s.lastError === undefined ? s : { ...s, lastError: runtime.redactor.redactText(s.lastError) })),
          ...(setup.traceFile ? { traceFile: setup.traceFile } : {}),
          ...browserSignIn(bound),
        },
      });
    }, { host, port, tls: serverConfig?.tls });
  } catch (error) {
    await gateway.close();
    await hooks.close();
    await setup.close();
    const code = (error as NodeJS.ErrnoException).code;
    const hint = code === 'EADDRINUSE' ? 'the port is taken; pick another with --port (0 picks a free one)' : code === 'EACCES' ? 'not allowed to listen there' : code === 'ENOENT' ? 'a server.tls file cannot be read' : serverConfig?.tls ? 'check --host and the server.tls certificate and key' : 'check --host';
    io.stderr(`toolcap: cannot listen on ${host}:${port}${code ? ` (${code})` : ''}: ${hint}\n`);
    return EXIT.USAGE;
  }
  const layers = setup.layers.length;
  io.stdout(
    `toolcap is serving ${snap.toolsFor().length} tools (${snap.personas.length} personas, ${layers} layer${layers === 1 ? '' : 's'}) at ${server.url}\n` +
      `  web console: ${server.url}/ (catalog, approvals, audit, health)\n` +
      `  ${identity.describe()}\n` +
      `  store: ${store.kind} ${store.location} (approvals, audit log, call health)${setup.traceFile ? `; traces: ${setup.traceFile}` : ''}${setup.tracing.otlpUrl ? `; OTLP: ${setup.runtime.redactor.redactText(setup.tracing.otlpUrl)}` : ''}\n` +
      `  ${server.url}/tools   ${server.url}/search?q=...&explain=1   ${server.url}/summary   ${server.url}/approvals   ${server.url}/metrics   ${server.url}/health   ${server.url}/openapi.json\n` +
      `  MCP gateway (Streamable HTTP): ${server.url}/mcp${setup.mcp ? `; MCP servers: ${setup.mcp.status().map((s) => `${s.server} ${s.state} (${s.tools} tools)`).join(', ')}` : ''}\n` +
      `${registry.status().watching ? 'Watching the manifests: saved edits go live; a broken edit keeps the last good catalog. ' : ''}Ctrl-C stops.\n`,
  );

  const own = io.signal === undefined ? processStop() : undefined;
  const signal = io.signal ?? (own as { signal: AbortSignal }).signal;
  if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  own?.release();
  io.stderr('toolcap: stopping\n');
  await gateway.close(); // open MCP event streams would keep the server from closing
  await server.close();
  await hooks.close();
  await setup.close();
  return EXIT.OK;
}
