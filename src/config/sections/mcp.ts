/**
 * The `mcp` section: the MCP servers whose tools toolcap discovers and calls
 * through (stdio or Streamable HTTP), with tool filters, per-server defaults
 * and personas. It goes to the MCP clients as an {@link McpConfig}.
 * @module
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { resolve } from 'node:path';
import { DEFAULT_MCP_HEALTH_CHECK_INTERVAL_SEC, GATEWAY_TOOLS_MODES, MCP_DEFAULTS, type GatewayToolsMode, type McpConfig, type McpDefaults, type McpServerConfig } from '../../mcp/config.js';
import { GATEWAY_NAME_MODES, type GatewayNameMode } from '../../mcp/gateway-names.js';
import { SIDE_EFFECTS } from '../../model/vocabulary.js';
import { DEFAULT_MAX_BODY_BYTES } from '../../runtime/containment/body-limit.js';
import type { ObjectReader } from '../../source/reader.js';
import { at } from '../../source/source.js';
import type { ConfigReading } from '../reading.js';
import { keyOrAlias, MCP_ALIASES, MCP_DEFAULT_ALIASES, mcpSectionReader, reportUnread } from './mcp-atlas.js';
import { PERSONA_NAME, PERSONA_PATTERN } from './personas.js';

export type { McpConfig };

/** Limits on the gateway's Streamable HTTP sessions (`/mcp`); unset fields keep the gateway's defaults (docs/mcp.md). */
export interface McpSessionsConfig {
  /** Open sessions per principal. @default 16 */
  maxPerPrincipal?: number;
  /** Open sessions in all. @default 256 */
  maxTotal?: number;
  /** A session unused this long is closed. @default 900 */
  idleSec?: number;
}

/**
 * The `mcp` section: the MCP clients' settings, and the gateway's: its
 * session limits and what its `tools/list` shows (`tools`, for both
 * `toolcap mcp serve` and `/mcp`; unset: `full`).
 */
export type McpSection = McpConfig & { sessions?: McpSessionsConfig; tools?: GatewayToolsMode; names?: GatewayNameMode };

/** An MCP server name: it becomes a segment of tool names (`mcp.<server>.<tool>`). */
const MCP_SERVER_PATTERN = '^[a-z0-9][a-z0-9_-]*$';
const MCP_SERVER_NAME = new RegExp(MCP_SERVER_PATTERN);

/** `{ env: NAME }`: a value read from toolcap's environment when it connects (never written in the file). */
const EnvReference = Type.Object({ env: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }) }, { additionalProperties: false });

/** A map of MCP server name to its settings: names restricted by `propertyNames`, as the reader checks them. */
const McpServers = <T extends TSchema>(server: T) =>
  Type.Unsafe<Record<string, Static<T>>>({ type: 'object', propertyNames: { pattern: MCP_SERVER_PATTERN }, additionalProperties: server });

/** ATLAS's spellings on a server (mcp-atlas.ts): filters, the health interval and the defaults' overrides. */
const ATLAS_SERVER_KEYS = {
  allow_tools: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'ATLAS spelling of allowTools.' })),
  deny_tools: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'ATLAS spelling of denyTools.' })),
  health_check_interval: Type.Optional(Type.Integer({ minimum: 1, description: 'ATLAS spelling of healthCheckIntervalSec.' })),
  side_effects: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...SIDE_EFFECTS], description: 'ATLAS spelling of defaults.sideEffects.' })),
  default_timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'ATLAS spelling of defaults.timeoutSec.' })),
  allow_parallel: Type.Optional(Type.Boolean({ description: 'ATLAS spelling of defaults.allowParallel.' })),
  requires_consent: Type.Optional(Type.Boolean({ description: 'ATLAS spelling of defaults.consent.' })),
  idempotency_key: Type.Optional(Type.Boolean({ description: 'ATLAS spelling of defaults.idempotencyKey.' })),
};

/** `mcp`: servers to discover tools from and call through. */
export const McpSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: 'Discover and call MCP tools (default: true when servers are listed).' })),
    tools: Type.Optional(
      Type.Unsafe<GatewayToolsMode>({
        type: 'string',
        enum: [...GATEWAY_TOOLS_MODES],
        description: 'What the gateway\'s tools/list shows: full (every tool the session may call, the default) or search (a search tool and a call tool; found tools join the list).',
      }),
    ),
    names: Type.Optional(
      Type.Unsafe<GatewayNameMode>({
        type: 'string',
        enum: [...GATEWAY_NAME_MODES],
        description: 'The names the gateway lists and calls tools under: canonical (notes.append, the default) or openai-safe (notes_append: what OpenAI and Anthropic accept); the real name is in _meta["toolcap.dev/name"].',
      }),
    ),
    sessions: Type.Optional(
      Type.Object(
        {
          maxPerPrincipal: Type.Optional(Type.Integer({ minimum: 1, description: 'Open /mcp sessions per principal (default 16).' })),
          maxTotal: Type.Optional(Type.Integer({ minimum: 1, description: 'Open /mcp sessions in all (default 256).' })),
          idleSec: Type.Optional(Type.Integer({ minimum: 1, description: 'Close a session unused this long (default 900).' })),
        },
        { additionalProperties: false, description: 'Limits on the gateway\'s Streamable HTTP sessions.' },
      ),
    ),
    allowTools: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Keep only these tools (names or mcp.<server>.<tool>, * wildcards), on every server.' })),
    denyTools: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Drop these tools, on every server.' })),
    healthCheckIntervalSec: Type.Optional(Type.Integer({ minimum: 1, description: 'Each server\'s default healthCheckIntervalSec.' })),
    maxResponseBytes: Type.Optional(
      Type.Integer({
        minimum: 1,
        default: DEFAULT_MAX_BODY_BYTES,
        description: 'Largest answer an HTTP MCP server may give one request (a JSON body) and largest single message of its event streams, in bytes (default 10 MiB); past it the request fails and the connection is dropped.',
      }),
    ),
    allow_tools: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'ATLAS spelling of allowTools.' })),
    deny_tools: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'ATLAS spelling of denyTools.' })),
    health_check_interval: Type.Optional(Type.Integer({ minimum: 1, description: 'ATLAS spelling of healthCheckIntervalSec.' })),
    servers: Type.Optional(
      McpServers(
        Type.Object(
          {
            command: Type.Optional(Type.String({ minLength: 1 })),
            args: Type.Optional(Type.Array(Type.String())),
            cwd: Type.Optional(Type.String({ minLength: 1 })),
            env: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), EnvReference]), { description: 'Variables for the server; { env: NAME } (or ${NAME} in a string) reads toolcap\'s environment when it connects.' })),
            url: Type.Optional(Type.String({ pattern: '^https?://' })),
            transport: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: ['streamable-http', 'sse'], description: 'With url: streamable-http (the default) or sse (the older HTTP+SSE transport).' })),
            headers: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), EnvReference]), { description: 'Request headers; { env: NAME } (or ${NAME} in a string) reads toolcap\'s environment when it connects.' })),
            persona: Type.Optional(Type.String({ pattern: PERSONA_PATTERN })),
            allowTools: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
            denyTools: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
            healthCheckIntervalSec: Type.Optional(Type.Integer({ minimum: 1, default: DEFAULT_MCP_HEALTH_CHECK_INTERVAL_SEC })),
            ...ATLAS_SERVER_KEYS,
            defaults: Type.Optional(
              Type.Object(
                {
                  sideEffects: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...SIDE_EFFECTS] })),
                  timeoutSec: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
                  allowParallel: Type.Optional(Type.Boolean()),
                  consent: Type.Optional(Type.Boolean()),
                  idempotencyKey: Type.Optional(Type.Boolean()),
                },
                { additionalProperties: false },
              ),
            ),
          },
          {
            additionalProperties: false,
            description: 'stdio (command, args, cwd, env) or Streamable HTTP (url, headers).',
            oneOf: [{ required: ['command'] }, { required: ['url'] }],
          },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

/**
 * Do two MCP settings connect the same way? Source positions do not count:
 * moving a server within the file changes nothing worth reconnecting for.
 */
export function sameMcpSettings(a: McpSection, b: McpSection): boolean {
  // the gateway's session limits and tools mode are not the clients' business
  const signature = ({ sessions: _s, tools: _t, names: _n, ...mcp }: McpSection) => JSON.stringify({ ...mcp, servers: mcp.servers.map(({ location: _l, ...rest }) => rest) });
  return signature(a) === signature(b);
}

/** Read `mcp` (optional); relative `cwd`s resolve from the config's folder. @default { enabled: false, allowTools: [], denyTools: [], servers: [] } */
export function readMcp(reading: ConfigReading): McpSection {
  const { report, file, root } = reading;
  const mcp: McpSection = { enabled: false, allowTools: [], denyTools: [], servers: [] };
  // `mcp`, or ATLAS's `tools.mcp`; ATLAS's key spellings are aliases (mcp-atlas.ts)
  const mcpReader = mcpSectionReader(reading);
  if (!mcpReader) return mcp;
  const sessions = readSessions(mcpReader);
  if (sessions) mcp.sessions = sessions;
  const tools = mcpReader.enumValue('tools', GATEWAY_TOOLS_MODES);
  if (tools) mcp.tools = tools;
  const names = mcpReader.enumValue('names', GATEWAY_NAME_MODES);
  if (names) mcp.names = names;
  const patterns = (reader: ObjectReader, key: string) => reader.strings(key)?.filter((p) => p !== '') ?? [];
  mcp.allowTools = patterns(mcpReader, keyOrAlias(mcpReader, 'allowTools', 'allow_tools'));
  mcp.denyTools = patterns(mcpReader, keyOrAlias(mcpReader, 'denyTools', 'deny_tools'));
  const defaultInterval = mcpReader.number(keyOrAlias(mcpReader, 'healthCheckIntervalSec', 'health_check_interval'), { integer: true, min: 1 });
  const enabled = mcpReader.boolean('enabled');
  const maxResponseBytes = mcpReader.number('maxResponseBytes', { integer: true, min: 1 });
  if (maxResponseBytes !== undefined) mcp.maxResponseBytes = maxResponseBytes;
  const servers = mcpReader.object('servers');
  for (const name of servers ? Object.keys(servers.value) : []) {
    const at0 = servers!.at(name);
    if (!MCP_SERVER_NAME.test(name)) {
      report('INVALID_VALUE', `The MCP server name "${name}" must be lowercase letters, digits, "_" or "-" (it becomes part of tool names: mcp.<server>.<tool>).`, at0, { hint: 'Rename the server, e.g. everything or github.' });
      continue;
    }
    const sr = servers!.object(name);
    if (!sr) continue;
    const command = sr.string('command');
    const url = sr.string('url');
    if ((command === undefined) === (url === undefined)) {
      report(command === undefined ? 'MISSING_FIELD' : 'INVALID_VALUE', `MCP server "${name}" needs exactly one of "command" (stdio) or "url" (Streamable HTTP).`, at0, { hint: 'Write command: npx, args: [...] for a local server, or url: https://... for a remote one.' });
    }
    if (url !== undefined && !/^https?:\/\/\S+$/.test(url)) report('INVALID_VALUE', `The url of MCP server "${name}" must start with http:// or https://.`, sr.at('url'), {});
    const stringMap = (key: string): Record<string, string> => {
      const m = sr.object(key);
      const out: Record<string, string> = {};
      if (!m) return out;
      for (const k of Object.keys(m.value)) {
        const raw = m.value[k];
        // { env: NAME } is kept as ${NAME}: the connection resolves both (mcp/server-references.ts)
        const isReference = typeof raw === 'object' && raw !== null && !Array.isArray(raw);
        const ref = isReference ? envReference(m, k) : undefined;
        const v = isReference ? (ref !== undefined ? `\${${ref}}` : undefined) : m.string(k);
        if (v !== undefined) out[k] = v;
      }
      return out;
    };
    const transport = sr.enumValue('transport', ['streamable-http', 'sse'] as const);
    if (transport !== undefined && url === undefined) report('INVALID_VALUE', `MCP server "${name}" has "transport" but no "url": transport is for remote servers.`, sr.at('transport'), {});
    const persona = sr.string('persona');
    if (persona !== undefined && !PERSONA_NAME.test(persona)) report('INVALID_VALUE', `The persona "${persona}" of MCP server "${name}" is not a persona name.`, sr.at('persona'), {});
    const cwd = sr.string('cwd');
    const interval = sr.number(keyOrAlias(sr, 'healthCheckIntervalSec', 'health_check_interval'), { integer: true, min: 1 });
    const defaults = readServerDefaults(sr, name);
    const server: McpServerConfig = {
      name,
      transport: url !== undefined ? (transport === 'sse' ? 'sse' : 'http') : 'stdio',
      args: sr.strings('args') ?? [],
      env: stringMap('env'),
      headers: stringMap('headers'),
      allowTools: patterns(sr, keyOrAlias(sr, 'allowTools', 'allow_tools')),
      denyTools: patterns(sr, keyOrAlias(sr, 'denyTools', 'deny_tools')),
      healthCheckIntervalSec: interval ?? defaultInterval ?? DEFAULT_MCP_HEALTH_CHECK_INTERVAL_SEC,
      defaults,
      location: at(file, at0),
      ...(command !== undefined ? { command } : {}),
      ...(url !== undefined ? { url } : {}),
      // a stdio server runs in the config's folder unless told otherwise, so relative paths read as in the config
      ...(command !== undefined ? { cwd: resolve(root, cwd ?? '.') } : {}),
      ...(persona !== undefined && PERSONA_NAME.test(persona) ? { persona } : {}),
    };
    reportUnread(sr, `MCP server "${name}"`, [...SERVER_KEYS, ...Object.keys(MCP_ALIASES), ...Object.keys(MCP_DEFAULT_ALIASES)]);
    mcp.servers.push(server);
  }
  mcp.enabled = enabled ?? mcp.servers.length > 0;
  reportUnread(mcpReader, 'the MCP settings', ['enabled', 'tools', 'names', 'sessions', 'allowTools', 'denyTools', 'healthCheckIntervalSec', 'maxResponseBytes', 'servers', ...Object.keys(MCP_ALIASES)]);
  return mcp;
}

/** `{ env: NAME }` at `key`: the variable's name (marked read), else undefined (the caller reads a string). */
function envReference(r: ObjectReader, key: string): string | undefined {
  const v = r.value[key];
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const ref = r.object(key);
  const name = ref?.string('env');
  ref?.rest({ where: `the reference ${key} (write { env: NAME })` });
  if (name === undefined || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    r.context.report('INVALID_VALUE', `"${key}" must be a string or { env: NAME }, NAME an environment variable name.`, r.at(key), { hint: 'Write API_KEY: { env: API_KEY } and set API_KEY where toolcap runs.' });
    return undefined;
  }
  return name;
}

/** toolcap's own keys of one server. */
const SERVER_KEYS = ['command', 'args', 'cwd', 'env', 'url', 'transport', 'headers', 'persona', 'allowTools', 'denyTools', 'healthCheckIntervalSec', 'defaults'];

/** A server's `defaults` for its discovered tools, over MCP_DEFAULTS, with ATLAS's server-level overrides. */
function readServerDefaults(sr: ObjectReader, name: string): McpDefaults {
  const defaults: McpDefaults = { ...MCP_DEFAULTS };
  const dr = sr.object('defaults');
  // ATLAS writes a server's overrides beside its other settings (side_effects, default_timeout, ...)
  for (const [alias, key] of Object.entries(MCP_DEFAULT_ALIASES)) {
    if (!sr.has(alias)) continue;
    if (dr?.has(key)) {
      sr.raw(alias);
      sr.context.report('DUPLICATE_KEY', `"${alias}" is the ATLAS spelling of "defaults.${key}"; give one of them.`, sr.at(alias), { key: true, hint: `Remove "${alias}" or "defaults.${key}".` });
      continue;
    }
    const value = key === 'sideEffects' ? sr.enumValue(alias, SIDE_EFFECTS) : key === 'timeoutSec' ? sr.number(alias, { min: 0.001 }) : sr.boolean(alias);
    if (value !== undefined) (defaults as unknown as Record<string, unknown>)[key] = value;
  }
  if (!dr) return defaults;
  const sideEffects = dr.enumValue('sideEffects', SIDE_EFFECTS);
  if (sideEffects) defaults.sideEffects = sideEffects;
  const timeoutSec = dr.number('timeoutSec', { min: 0.001 });
  if (timeoutSec !== undefined) defaults.timeoutSec = timeoutSec;
  for (const key of ['allowParallel', 'consent', 'idempotencyKey'] as const) {
    const b = dr.boolean(key);
    if (b !== undefined) defaults[key] = b;
  }
  dr.rest({ where: `the defaults of MCP server "${name}" (known: sideEffects, timeoutSec, allowParallel, consent, idempotencyKey)` });
  return defaults;
}

/** `mcp.sessions`: caps and idle expiry of the gateway's HTTP sessions. */
function readSessions(mcpReader: ObjectReader): McpSessionsConfig | undefined {
  const r = mcpReader.object('sessions');
  if (!r) return undefined;
  const sessions: McpSessionsConfig = {};
  for (const key of ['maxPerPrincipal', 'maxTotal', 'idleSec'] as const) {
    const n = r.number(key, { integer: true, min: 1 });
    if (n !== undefined) sessions[key] = n;
  }
  r.rest({ where: 'mcp.sessions (known: maxPerPrincipal, maxTotal, idleSec)' });
  return sessions;
}
