/**
 * `toolcap mcp serve [paths...] [--config F] [--persona P] [--principal ID] [--tools full|search]`:
 * the registry's tools as an MCP server over stdio, each call through the
 * runtime (approvals, failover, audit) as the config's local principal (or
 * `--principal`), with its persona grants and the same approval rules. stdout carries the protocol only; every
 * human message goes to stderr. Reloads when the manifests change and
 * tells the client (`notifications/tools/list_changed`). Stops when stdin
 * ends, on SIGINT or SIGTERM (or, in-process, when `io.signal` aborts),
 * and exits 0. `--tools search` (or the config's `mcp.tools: search`) lists
 * only the search and call meta-tools (docs/mcp.md, "Search mode").
 * @module
 */
import type { Readable, Writable } from 'node:stream';
import { principalNamed } from '../config/identity.js';
import { GATEWAY_TOOLS_MODES, type GatewayToolsMode } from '../mcp/search-mode.js';
import { createGatewayServer, type Gateway } from '../mcp/server.js';
import { BoundedStdioServerTransport } from '../mcp/stdio-server.js';
import type { ReloadEvent } from '../registry/registry.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { invocation } from './invocation.js';
import { logLine, type CliIO } from './io.js';
import { renderDiagnostic } from './render.js';
import { openToolcap, readPlan } from './open.js';
import type { LoadFlags } from './shared.js';
import { errorMessage } from '../model/errors.js';
import { CallError } from '../runtime/errors.js';

export interface McpServeFlags extends LoadFlags {
  /** Serve this persona's tools; none: the shared tools only. */
  persona?: string;
  /** Serve only this catalog agent's view, and refuse calls outside it. */
  agent?: string;
  /** Who calls, shown beside the principal. @default "mcp:<client name>" */
  caller?: string;
  /** The principal the client acts as. @default the config's local principal */
  principal?: string;
  /** --no-watch sets false. @default true */
  watch?: boolean;
  /** What tools/list shows: full or search. @default the config's mcp.tools, else "full" */
  tools?: string;
}

/** The CLI's streams plus, for tests, the protocol streams (default: process.stdin / process.stdout). */
export type McpServeIO = CliIO & { signal?: AbortSignal; stdin?: Readable; stdoutStream?: Writable };

function describeReload(event: ReloadEvent, io: CliIO): void {
  const at = event.at.slice(11, 19);
  if (event.kind === 'reloaded') {
    io.stderr(`[${at}] toolcap mcp: reloaded, now serving version ${event.version}; told the client its tool list changed\n`);
  } else if (event.kind === 'failed') {
    io.stderr(`[${at}] toolcap mcp: reload failed; still serving version ${event.version}. Fix the files and save again.\n`);
    for (const d of event.diagnostics) if (d.severity === 'error') io.stderr(`${renderDiagnostic(d, new Map())}\n`);
  }
}

export async function mcpServeCommand(paths: string[], flags: McpServeFlags, io: McpServeIO): Promise<ExitCode> {
  // stdout is the protocol: whatever a helper would print there goes to stderr
  const human: CliIO = { stdout: (t) => io.stderr(t), stderr: (t) => io.stderr(t) };
  const plan = readPlan(paths, flags, human);
  if (typeof plan === 'number') return plan;
  const tools = flags.tools ?? plan.config?.mcp.tools ?? 'full';
  if (!(GATEWAY_TOOLS_MODES as readonly string[]).includes(tools)) {
    human.stderr(`toolcap mcp: --tools is "${tools}"; use one of: ${GATEWAY_TOOLS_MODES.join(', ')}\n`);
    return EXIT.USAGE;
  }
  const setup = await openToolcap(plan, human, { watch: flags.watch ?? true });
  if (typeof setup === 'number') return setup;
  const { registry, runtime } = setup;
  const principal = principalNamed(plan.config?.auth, flags.principal);
  const ranking = plan.config?.ranking ?? {};

  let gateway: Gateway;
  try {
    gateway = createGatewayServer({
      registry,
      runtime,
      principal,
      tools: tools as GatewayToolsMode,
      ranking,
      health: setup.health,
      warn: (line: string) => human.stderr(`toolcap mcp: ${logLine(runtime.redactor.redactText(line))}\n`),
      ...(plan.config ? { configPath: plan.config.file } : {}),
      command: invocation(),
      ...(plan.config?.mcp.names ? { names: plan.config.mcp.names } : {}),
      ...(flags.persona !== undefined ? { persona: flags.persona } : {}),
      ...(flags.agent !== undefined ? { agent: flags.agent } : {}),
      ...(flags.caller !== undefined ? { caller: flags.caller } : {}),
    });
  } catch (error) {
    // a persona this principal may not use, or one nobody knows: say which it may use
    const allowed = error instanceof CallError ? error.extra.allowed : undefined;
    const which = error instanceof CallError && error.code === 'UNKNOWN_AGENT' ? 'agents there are' : `personas ${principal.id} may use`;
    human.stderr(`toolcap mcp: ${errorMessage(error)}${allowed ? ` (${which}: ${allowed.join(', ') || 'none'})` : ''}\n`);
    await setup.close();
    return EXIT.USAGE;
  }
  // the gateway tells its client of reloads itself (it subscribes to the registry)
  registry.subscribe((event) => describeReload(event, human));
  const stdin = io.stdin ?? process.stdin;
  const stdout = io.stdoutStream ?? process.stdout;
  // over-long or broken lines are answered with JSON-RPC errors; the server keeps serving
  const transport = new BoundedStdioServerTransport(stdin, stdout);

  // stop on: stdin end, transport close, io.signal, or (without io.signal) SIGINT / SIGTERM
  const stop = new AbortController();
  const onEnd = () => stop.abort();
  stdin.once('end', onEnd);
  stdin.once('close', onEnd);
  const onSignal = () => stop.abort();
  if (io.signal) io.signal.addEventListener('abort', onSignal, { once: true });
  else {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  transport.onclose = () => stop.abort();
  transport.onerror = (error) => human.stderr(`toolcap mcp: transport error: ${logLine(error.message)}\n`);

  let code: ExitCode = EXIT.OK;
  try {
    await gateway.server.connect(transport);
    const snap = registry.snapshot();
    const persona = flags.persona ?? principal.defaultPersona;
    const count = snap.callableTools(persona).length;
    human.stderr(
      `toolcap mcp: serving ${count} tools${tools === 'search' ? ' in search mode (tools/list: the search and call tools)' : ''}${persona !== undefined ? ` for persona "${persona}"` : ' (shared tools; --persona for a persona)'} over stdio as principal "${principal.id}"` +
        `; ${setup.identity.selfApproval ? 'self-approval on' : 'four eyes: approve from another principal'}` +
        `; store: ${setup.store.kind} ${setup.store.location}${registry.status().watching ? '; watching the manifests' : ''}\n`,
    );
    if (io.signal?.aborted) stop.abort();
    if (!stop.signal.aborted) await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
  } catch (error) {
    human.stderr(`toolcap mcp: ${errorMessage(error)}\n`);
    code = EXIT.INTERNAL;
  } finally {
    stdin.off('end', onEnd);
    stdin.off('close', onEnd);
    io.signal?.removeEventListener('abort', onSignal);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    human.stderr('toolcap mcp: stopping\n');
    await gateway.close().catch(() => undefined);
    await setup.close();
  }
  return code;
}
