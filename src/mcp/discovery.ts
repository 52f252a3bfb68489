/**
 * Discovered MCP tools as canonical tools: a server's `tools/list` result is
 * filtered by the allow/deny lists (before anything is translated), read by
 * the `mcp` dialect exactly as a `tools/list` file would be, then named
 * `mcp.<server>.<tool>`, given the server's defaults and an `mcp` provider,
 * and written as a canonical toolcap document to a cache folder (one file
 * per server, `mcp.<server>.json`) that the registry reads as a layer.
 *
 * How annotations and the server's defaults combine (seed 000, "Dynamically
 * discovered MCP tools"): the defaults (`sideEffects` network, 30 s timeout,
 * no parallel calls, consent required, no idempotency key unless the server
 * config says otherwise) are the floor. Annotations are the server's word
 * about itself, so they may only make a tool **stricter** than the defaults
 * (a destructive or closed-world write reads as `filesystem`/`write`,
 * `reversible: none`, `risk: high`, as the dialect reads them), never
 * looser, with one exception: `readOnlyHint: true` may lower `sideEffects`,
 * but only to `read_external_service`, never below (even with
 * `openWorldHint: false`, where the dialect alone would say `none`); a
 * server default already at or below that stays. Execution (`timeoutSec`,
 * `allowParallel`, `idempotencyKey`) and `approval.consent` always come from
 * the defaults. Values taken from the defaults are declared (configuration
 * is a reviewed statement); values read from annotations stay listed in
 * `derived`, so a reviewed manifest layered on top always wins over them.
 * @module
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mcpDialect } from '../dialects/mcp.js';
import { canonicalName } from '../dialects/mcp/names.js';
import { createImportContext } from '../source/context.js';
import { parseSource } from '../source/source.js';
import { diagnostic, type Diagnostic } from '../model/diagnostics.js';
import type { Tool } from '../model/schema.js';
import { rank, SIDE_EFFECTS, TOOL_NAME_PATTERN, type SideEffect } from '../model/vocabulary.js';
import { toolAllowed, type McpConfig, type McpDefaults, type McpServerConfig } from './config.js';

/** One item of a `tools/list` result, as the server sent it (the SDK's `Tool`). */
export type McpToolDefinition = { name: string } & Record<string, unknown>;

/** The lowest side effect a `readOnlyHint` may bring a tool down to. */
const READ_ONLY_FLOOR: SideEffect = 'read_external_service';

const NAME_RE = new RegExp(TOOL_NAME_PATTERN);

/** Lower-case, runs of characters a tool name may not hold as `_` (as the dialect folds names). */
export function sanitizeNamePart(part: string): string {
  return part.toLowerCase().replace(/[^a-z0-9_.-]+/g, '_');
}

/** The canonical name of a server's tool: `mcp.<server>.<tool>`, or undefined when none can be made valid. */
export function discoveredToolName(server: string, tool: string): string | undefined {
  const s = sanitizeNamePart(server);
  const t = sanitizeNamePart(tool);
  if (s === '' || t === '' || /^[.-]|[.-]$/.test(s)) return undefined;
  const name = `mcp.${s}.${t}`;
  return NAME_RE.test(name) ? name : undefined;
}

/**
 * Translate what `tools/list` returned for `server` into canonical tools.
 * Tools the allow/deny lists drop are never translated; tools whose name
 * cannot be made valid are dropped with an `INVALID_TOOL_NAME` diagnostic.
 */
export function translateTools(
  config: McpConfig,
  server: McpServerConfig,
  tools: readonly McpToolDefinition[],
): { tools: Tool[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  // judged by the name toolcap will list the tool under too (the dialect's folding of the server's name)
  const kept = tools.filter((t) => typeof t.name !== 'string' || toolAllowed(config, server, t.name, discoveredToolName(server.name, canonicalName(t.name))));
  const path = `mcp/${server.name}/tools-list.json`;
  const parsed = parseSource(path, JSON.stringify({ tools: kept }));
  diagnostics.push(...parsed.diagnostics);
  if (!parsed.file) return { tools: [], diagnostics };
  const context = createImportContext(parsed.file);
  const imported = mcpDialect.import(context);
  diagnostics.push(...context.diagnostics);
  const out: Tool[] = [];
  const seen = new Set<string>();
  for (const { value, pointer } of imported.tools) {
    const original = value.id ?? value.name;
    const name = discoveredToolName(server.name, value.name);
    if (name === undefined) {
      diagnostics.push(
        diagnostic('INVALID_TOOL_NAME', `MCP tool "${original}" of server "${server.name}" has no valid toolcap name; it is left out.`, {
          file: path,
          pointer,
          hint: 'Tool names must match ' + TOOL_NAME_PATTERN + ' after "mcp.<server>.".',
        }),
      );
      continue;
    }
    if (seen.has(name)) {
      diagnostics.push(
        diagnostic('DUPLICATE_TOOL', `MCP tools of server "${server.name}" fold to one name "${name}"; "${original}" is left out.`, { file: path, pointer }),
      );
      continue;
    }
    seen.add(name);
    out.push(applyServer(value, name, original, server));
  }
  return { tools: out, diagnostics };
}

/** Name, defaults, provider, scope and tags for one imported tool (see the module comment for the rule). */
function applyServer(imported: Tool, name: string, original: string, server: McpServerConfig): Tool {
  const d: McpDefaults = server.defaults;
  const derived = new Set(imported.derived ?? []);
  // The toolcap name is ours, not a reading of the source; the MCP name is kept as `id`.
  derived.delete('name');
  derived.delete('id');
  const effects = { ...imported.effects };
  const fromHints = effects.sideEffects;
  if (imported.hints?.readOnly === true) {
    if (rank(SIDE_EFFECTS, d.sideEffects) <= rank(SIDE_EFFECTS, READ_ONLY_FLOOR)) {
      effects.sideEffects = d.sideEffects;
      derived.delete('effects.sideEffects');
    } else {
      effects.sideEffects = READ_ONLY_FLOOR;
      derived.add('effects.sideEffects');
    }
  } else if (fromHints === undefined || rank(SIDE_EFFECTS, fromHints) <= rank(SIDE_EFFECTS, d.sideEffects)) {
    effects.sideEffects = d.sideEffects;
    derived.delete('effects.sideEffects');
  }
  const execution = { ...imported.execution, timeoutSec: d.timeoutSec, allowParallel: d.allowParallel, idempotencyKey: d.idempotencyKey };
  for (const key of ['timeoutSec', 'allowParallel', 'idempotencyKey']) derived.delete(`execution.${key}`);
  const tags = [...new Set([...(imported.tags ?? []), 'mcp', `mcp.${sanitizeNamePart(server.name)}`])];
  const tool: Tool = {
    ...imported,
    name,
    id: original,
    tags,
    effects,
    execution,
    approval: { ...imported.approval, consent: d.consent },
    providers: [{ name: 'mcp', priority: 0, config: { server: server.name, tool: original } }],
  };
  if (server.persona !== undefined) tool.scope = { personas: [server.persona] };
  if (derived.size > 0) tool.derived = [...derived];
  else delete tool.derived;
  return tool;
}

/** What a server said it is in its `initialize` answer (`serverInfo`). */
export interface McpServerInfo {
  name: string;
  version: string;
}

/** The canonical document written as a server's cache file. */
export interface DiscoveryDocument {
  toolcap: 1;
  bundle: { name: string; metadata: { discoveredAt: string; server: string; serverInfo?: McpServerInfo } };
  tools: Tool[];
}

/**
 * A canonical toolcap document holding `server`'s discovered tools, and the
 * server's `serverInfo`: kept so that a server's identity (approvals are
 * bound to it) is known from the cache while the server is down.
 */
export function discoveryDocument(server: string, tools: readonly Tool[], discoveredAt: string = new Date().toISOString(), serverInfo?: McpServerInfo): DiscoveryDocument {
  const metadata = { discoveredAt, server, ...(serverInfo !== undefined ? { serverInfo: { name: serverInfo.name, version: serverInfo.version } } : {}) };
  return { toolcap: 1, bundle: { name: `mcp.${sanitizeNamePart(server)}`, metadata }, tools: [...tools] };
}

/** The cache file of `server` in `dir`: `mcp.<server>.json`. */
export function discoveryCachePath(dir: string, server: string): string {
  return join(dir, `mcp.${server.replace(/[^A-Za-z0-9_.-]+/g, '_')}.json`);
}

let tempCounter = 0;

/**
 * Write `server`'s tools to its cache file atomically: a temporary file in
 * the same folder (named `*.tmp`, which no folder walk reads), then a rename,
 * so a watcher never sees half a file. Returns the path written.
 */
export function writeDiscoveryCache(dir: string, server: string, tools: readonly Tool[], discoveredAt?: string, serverInfo?: McpServerInfo): string {
  mkdirSync(dir, { recursive: true });
  const target = discoveryCachePath(dir, server);
  const temp = `${target}.${process.pid}.${++tempCounter}.tmp`;
  try {
    writeFileSync(temp, JSON.stringify(discoveryDocument(server, tools, discoveredAt, serverInfo), null, 2) + '\n', 'utf8');
    renameSync(temp, target);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  return target;
}

/** What a cache file holds; undefined when there is none or it is unreadable. */
export function readDiscoveryCache(dir: string, server: string): { tools: Tool[]; discoveredAt?: string; serverInfo?: McpServerInfo } | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(discoveryCachePath(dir, server), 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof doc !== 'object' || doc === null || !Array.isArray((doc as { tools?: unknown }).tools)) return undefined;
  const d = doc as Partial<DiscoveryDocument>;
  const discoveredAt = d.bundle?.metadata?.discoveredAt;
  const info: unknown = d.bundle?.metadata?.serverInfo;
  const serverInfo = isServerInfo(info) ? { name: info.name, version: info.version } : undefined;
  return { tools: d.tools as Tool[], ...(typeof discoveredAt === 'string' ? { discoveredAt } : {}), ...(serverInfo ? { serverInfo } : {}) };
}

function isServerInfo(value: unknown): value is McpServerInfo {
  const v = value as Partial<McpServerInfo> | null;
  return typeof v === 'object' && v !== null && typeof v.name === 'string' && typeof v.version === 'string';
}
