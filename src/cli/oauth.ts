/**
 * `toolcap oauth connect|status|disconnect`: the OAuth connections of tools
 * that declare OAuth services (Shinkai `oauth[]`), kept sealed in the store
 * the config names (docs/oauth.md). `connect` prints the URL to open and
 * waits for the browser on a loopback listener; toolcap opens no browser.
 * @module
 */
import { errorMessage } from '../model/errors.js';
import type { Tool } from '../model/schema.js';
import type { Toolcap } from '../host.js';
import { connectOAuth, OAuthConnectError } from '../runtime/oauth/connect.js';
import { SecretKeyError } from '../runtime/oauth/sealed-box.js';
import { oauthServiceNames, OAuthSetupError } from '../runtime/oauth/services.js';
import { connectCommand } from '../runtime/oauth/vault.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { logLine, type CliIO } from './io.js';
import { untrusted } from './terminal.js';
import { openToolcap, readPlan } from './open.js';
import type { LoadFlags } from './shared.js';

export interface OAuthFlags extends LoadFlags {
  service?: string;
  /** Seconds to wait for the browser (connect). */
  timeout?: string;
  json?: boolean;
}

/**
 * Run `toolcap oauth connect|status|disconnect` on the catalog of `paths`
 * and `flags` (already settled against --config).
 */
export async function oauthCommand(action: 'connect' | 'status' | 'disconnect', tool: string | undefined, paths: string[], flags: OAuthFlags, io: CliIO): Promise<ExitCode> {
  return withToolcap(paths, flags, io, (t) => (action === 'connect' ? connect(t, tool!, flags, io) : action === 'status' ? status(t, tool, flags, io) : disconnect(t, tool!, flags, io)));
}

/** Open a toolcap without MCP servers or traces (none of these commands runs a tool), run `body`, close it. */
async function withToolcap(paths: string[], flags: LoadFlags, io: CliIO, body: (toolcap: Toolcap) => Promise<ExitCode>): Promise<ExitCode> {
  const plan = readPlan(paths, flags, io);
  if (typeof plan === 'number') return plan;
  const toolcap = await openToolcap(plan, io, { mcp: false, traces: false });
  if (typeof toolcap === 'number') return toolcap;
  try {
    return await body(toolcap);
  } catch (error) {
    io.stderr(`toolcap: ${untrusted(errorMessage(error), toolcap.runtime.redactor)}\n`);
    return EXIT.FINDINGS;
  } finally {
    await toolcap.close();
  }
}

/** The catalog's tool of that name (any persona's version: a connection is per tool name). */
function toolNamed(toolcap: Toolcap, name: string): Tool | undefined {
  return toolcap.registry.snapshot().tools.find((t) => t.name === name);
}

async function connect(toolcap: Toolcap, name: string, flags: OAuthFlags, io: CliIO): Promise<ExitCode> {
  const tool = toolNamed(toolcap, name);
  if (!tool) {
    io.stderr(`toolcap: no tool named "${name}" in the catalog\n`);
    return EXIT.USAGE;
  }
  const timeoutSec = Number(flags.timeout ?? '300');
  if (!Number.isFinite(timeoutSec) || timeoutSec <= 0) {
    io.stderr(`toolcap: --timeout must be a positive number of seconds, not "${flags.timeout}"\n`);
    return EXIT.USAGE;
  }
  try {
    const result = await connectOAuth({
      vault: toolcap.oauth,
      tool,
      ...(flags.service !== undefined ? { service: flags.service } : {}),
      timeoutMs: timeoutSec * 1000,
      ...(toolcap.config?.egress ? { egress: { allow: toolcap.config.egress.allow } } : {}),
      onAuthorizationUrl: (url, redirectUri) => {
        io.stderr(`toolcap: open this URL in a browser to connect "${tool.name}" (waiting ${timeoutSec} s for the redirect to ${redirectUri}):\n`);
        io.stdout(`${url}\n`);
      },
      // quotes the manifest's redirectUrl
      onNotice: (message) => io.stderr(`toolcap: ${logLine(message)}\n`),
    });
    const { record } = result;
    await audit(toolcap, 'oauth.connected', record.tool, { service: record.service, expiresAt: record.expiresAt, scope: record.scope, refreshToken: record.hasRefreshToken }, io);
    if (flags.json) io.stdout(`${JSON.stringify({ connected: view(record.tool, record.service, record) }, null, 2)}\n`);
    else io.stderr(`toolcap: ${logLine(`connected "${result.tool}" to ${result.service}${record.expiresAt ? `; the access token expires ${record.expiresAt}` : ''}${record.hasRefreshToken ? ' (refresh token kept)' : ''}`)}\n`);
    return EXIT.OK;
  } catch (error) {
    if (error instanceof SecretKeyError || error instanceof OAuthSetupError) {
      // a setup problem quotes the manifest (service names, URLs, settings)
      io.stderr(`toolcap: ${logLine(error.message)}\n`);
      return EXIT.USAGE;
    }
    if (error instanceof OAuthConnectError) {
      // the authorization server's error and error_description, or a token endpoint's answer: redacted, one line
      io.stderr(`toolcap: connecting "${tool.name}" failed: ${untrusted(error.message, toolcap.runtime.redactor)}\n`);
      return EXIT.FINDINGS;
    }
    throw error;
  }
}

interface ConnectionView {
  tool: string;
  service: string;
  connected: boolean;
  expiresAt?: string | null;
  refreshToken?: boolean;
  scope?: string | null;
  updatedAt?: string;
  /** In the store, but no tool of the catalog declares it. */
  orphan?: boolean;
  command?: string;
}

function view(tool: string, service: string, record: { expiresAt: string | null; hasRefreshToken: boolean; scope: string | null; updatedAt: string } | undefined): ConnectionView {
  if (!record) return { tool, service, connected: false, command: connectCommand(tool, service) };
  return { tool, service, connected: true, expiresAt: record.expiresAt, refreshToken: record.hasRefreshToken, scope: record.scope, updatedAt: record.updatedAt };
}

async function status(toolcap: Toolcap, name: string | undefined, flags: OAuthFlags, io: CliIO): Promise<ExitCode> {
  const tools = toolcap.registry.snapshot().tools.filter((t) => (name === undefined || t.name === name) && oauthServiceNames(t).length > 0);
  if (name !== undefined && tools.length === 0 && !toolNamed(toolcap, name)) {
    io.stderr(`toolcap: no tool named "${name}" in the catalog\n`);
    return EXIT.USAGE;
  }
  const stored = await toolcap.oauth.list(name);
  const byKey = new Map(stored.map((r) => [`${r.tool}\u0000${r.service}`, r]));
  const out: ConnectionView[] = [];
  const seen = new Set<string>();
  for (const tool of tools) {
    for (const service of oauthServiceNames(tool)) {
      const key = `${tool.name}\u0000${service}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(view(tool.name, service, byKey.get(key)));
    }
  }
  for (const r of stored) if (!seen.has(`${r.tool}\u0000${r.service}`)) out.push({ ...view(r.tool, r.service, r), orphan: true });
  if (flags.json) {
    io.stdout(`${JSON.stringify({ connections: out }, null, 2)}\n`);
    return EXIT.OK;
  }
  if (out.length === 0) io.stdout(name === undefined ? 'No tool declares an OAuth service.\n' : `"${name}" declares no OAuth service.\n`);
  for (const c of out) {
    const state = c.connected
      ? `connected${c.expiresAt ? `, expires ${c.expiresAt}` : ''}${c.refreshToken ? ', refresh token kept' : ''}${c.orphan ? ' (no tool in the catalog declares it)' : ''}`
      : `not connected: run ${c.command}`;
    // the service is the manifest's name for it (and the command repeats it): one line, control characters escaped
    io.stdout(`${logLine(`${c.tool}  ${c.service}  ${state}`)}\n`);
  }
  return EXIT.OK;
}

async function disconnect(toolcap: Toolcap, name: string, flags: OAuthFlags, io: CliIO): Promise<ExitCode> {
  const removed = await toolcap.oauth.disconnect(name, flags.service);
  if (removed > 0) await audit(toolcap, 'oauth.disconnected', name, { service: flags.service ?? '*', removed }, io);
  const what = logLine(flags.service !== undefined ? `"${name}" (service ${flags.service})` : `"${name}"`);
  io.stderr(removed === 0 ? `toolcap: ${what} had no stored OAuth connection\n` : `toolcap: disconnected ${what}: ${removed} connection(s) forgotten\n`);
  return removed === 0 ? EXIT.FINDINGS : EXIT.OK;
}

/** An audit line for a connection made or forgotten (who: the local user); a store hiccup is a warning, the connection stands. */
async function audit(toolcap: Toolcap, kind: string, tool: string, detail: Record<string, unknown>, io: CliIO): Promise<void> {
  try {
    await toolcap.store.appendAudit({ at: new Date().toISOString(), kind, tool, callId: null, persona: null, actor: `cli:${process.env['USER'] ?? process.env['USERNAME'] ?? 'unknown'}`, detail });
  } catch (error) {
    io.stderr(`toolcap: could not write the ${kind} audit line: ${errorMessage(error)}\n`);
  }
}
