/**
 * The MCP gateway: the registry's tools served to MCP clients (Claude
 * Desktop, IDE agents, the SDK's `Client`), every call going through the
 * runtime pipeline (persona scope, argument validation, approvals, provider
 * failover, timeouts, retries, audit).
 *
 * - `tools/list`: the persona's enabled tools (no persona: the shared tools
 *   only), sorted by name, 100 per page behind an opaque cursor; each with
 *   MCP `annotations` derived from `effects`/`execution` and a
 *   `_meta["toolcap.dev/capability"]` block (see {@link mcpToolOf}).
 * - `tools/call`: `runtime.call`. A call that needs approval is put to the
 *   user through elicitation when the client supports it, else answered
 *   with a tool error naming the approval id and how to approve it.
 * - `notifications/tools/list_changed` after a registry reload
 *   (`notifyToolsChanged`, wired by the caller).
 *
 * Transports: any SDK transport (`createGatewayServer` + `server.connect`),
 * stdio (`toolcap mcp serve`), and Streamable HTTP ({@link mcpHttpHandler}).
 * See docs/mcp.md.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  isInitializeRequest,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ListToolsResult,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Tool } from '../model/schema.js';
import { toolHash } from '../model/hash.js';
import type { Registry } from '../registry/registry.js';
import { CallError } from '../runtime/errors.js';
import type { ApprovalView, CallResult, Runtime } from '../runtime/runtime.js';
import { toolcapVersion } from '../model/version.js';
import { errorMessage } from '../model/errors.js';

/** The `_meta` key of the capability block on every listed tool. */
export const CAPABILITY_META_KEY = 'toolcap.dev/capability';
/** The `_meta` key on call results: the call's id, provider and attempts. */
export const CALL_META_KEY = 'toolcap.dev/call';
/** The `_meta` key on error results: `{ code, message, ... }`. */
export const ERROR_META_KEY = 'toolcap.dev/error';
/** Tools per `tools/list` page. */
export const MCP_PAGE_SIZE = 100;
/** Who approves in the audit log when the MCP client's user accepts an elicitation. */
export const MCP_APPROVER = 'mcp-client';

/** Side effects that reach beyond the process and the local machine (openWorldHint). */
const OPEN_WORLD = new Set(['read_external_service', 'network', 'write', 'system']);
/** Side effects whose changes may destroy data (destructiveHint, for tools that are not read-only). */
const DESTRUCTIVE = new Set(['write', 'database', 'filesystem', 'system']);

/** The capability block of `_meta["toolcap.dev/capability"]`. Absent manifest fields are null. */
export interface McpCapabilityMeta {
  version: string | null;
  mode: string | null;
  sideEffects: string | null;
  risk: string | null;
  reversible: string | null;
  rollbackHint: string | null;
  approvalRequired: boolean;
  consent: boolean;
  retryClass: string | null;
  timeoutSec: number | null;
  idempotent: boolean | null;
  capabilities: string[];
  /** `toolHash(tool)`: what an approval binds to. */
  manifestHash: string;
}

/**
 * MCP annotations of a tool. Explicit `hints` in the manifest win; otherwise:
 * - readOnlyHint: `effects.mode` is `read`
 * - destructiveHint: not read-only, and `reversible` is `none` or
 *   `sideEffects` is write, database, filesystem or system
 * - idempotentHint: `execution.idempotent === true`
 * - openWorldHint: `sideEffects` is read_external_service, network, write or system
 * Unknown values give false (MCP's own defaults for missing hints are the
 * pessimistic ones, but toolcap derives from declared effects: an effect
 * that is not declared is not claimed).
 */
export function mcpAnnotationsOf(tool: Tool): NonNullable<McpTool['annotations']> {
  const effects = tool.effects ?? {};
  const readOnly = effects.mode === 'read';
  const derived = {
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && (effects.reversible === 'none' || (effects.sideEffects !== undefined && DESTRUCTIVE.has(effects.sideEffects))),
    idempotentHint: tool.execution?.idempotent === true,
    openWorldHint: effects.sideEffects !== undefined && OPEN_WORLD.has(effects.sideEffects),
  };
  const hints = tool.hints ?? {};
  return {
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    readOnlyHint: hints.readOnly ?? derived.readOnlyHint,
    destructiveHint: hints.destructive ?? derived.destructiveHint,
    idempotentHint: hints.idempotent ?? derived.idempotentHint,
    openWorldHint: hints.openWorld ?? derived.openWorldHint,
  };
}

/** The capability block of a tool (`_meta["toolcap.dev/capability"]`). */
export function capabilityMetaOf(tool: Tool): McpCapabilityMeta {
  const e = tool.effects ?? {};
  const x = tool.execution ?? {};
  return {
    version: tool.version ?? null,
    mode: e.mode ?? null,
    sideEffects: e.sideEffects ?? null,
    risk: e.risk ?? null,
    reversible: e.reversible ?? null,
    rollbackHint: e.rollbackHint ?? null,
    approvalRequired: tool.approval?.required === true,
    consent: tool.approval?.consent === true,
    retryClass: x.retryClass ?? null,
    timeoutSec: x.timeoutSec ?? null,
    idempotent: x.idempotent ?? null,
    capabilities: [...(tool.capabilities ?? [])],
    manifestHash: toolHash(tool),
  };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * An object schema MCP accepts (root `type: "object"`): an object schema
 * with no `type` gets one; a boolean or non-object schema is not usable as
 * a root, so `fallback` is used.
 */
function objectSchema(schema: unknown): (Record<string, unknown> & { type: 'object' }) | undefined {
  if (!isPlainObject(schema)) return undefined;
  if (schema['type'] !== undefined && schema['type'] !== 'object') return undefined;
  return { ...schema, type: 'object' };
}

/**
 * The MCP tool definition of a toolcap tool: name, title, description,
 * inputSchema (default `{ type: "object" }`), outputSchema (only when it is
 * an object schema, as MCP requires), annotations ({@link mcpAnnotationsOf})
 * and `_meta["toolcap.dev/capability"]` ({@link capabilityMetaOf}).
 */
export function mcpToolOf(tool: Tool): McpTool {
  const outputSchema = objectSchema(tool.outputSchema);
  return {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: objectSchema(tool.inputSchema) ?? { type: 'object' },
    ...(outputSchema ? { outputSchema } : {}),
    annotations: mcpAnnotationsOf(tool),
    _meta: { [CAPABILITY_META_KEY]: capabilityMetaOf(tool) },
  };
}

/** The tools a gateway lists: the persona's enabled tools, or with no persona the shared ones; by name. */
export function gatewayTools(registry: Registry, persona?: string): Tool[] {
  return [...registry.snapshot().callableTools(persona)];
}

/** A page cursor: the last name of the previous page (stable across reloads), base64url JSON. */
const encodeCursor = (after: string) => Buffer.from(JSON.stringify({ after }), 'utf8').toString('base64url');
function decodeCursor(cursor: string): string {
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (isPlainObject(value) && typeof value['after'] === 'string') return value['after'];
  } catch {
    // fall through
  }
  throw new McpError(ErrorCode.InvalidParams, `Invalid cursor "${cursor.slice(0, 80)}": use the nextCursor of a previous tools/list answer.`);
}

export interface GatewayOptions {
  registry: Registry;
  runtime: Runtime;
  /** The persona whose tools are served; none: the shared tools only. */
  persona?: string;
  /** Who calls, for the audit log. @default "mcp:<client name>" from the client's initialize, else "mcp-client" */
  caller?: string;
  /** Server name in `initialize`. @default "toolcap" */
  name?: string;
  /** Server version in `initialize`. @default the toolcap version */
  version?: string;
  /** How long to wait for the user to answer an approval elicitation. @default 600000 (10 min) */
  elicitationTimeoutMs?: number;
}

export interface Gateway {
  server: Server;
  /** Send `notifications/tools/list_changed` (nothing when not connected). Never throws. */
  notifyToolsChanged(): void;
  close(): Promise<void>;
}

const text = (t: string): CallToolResult['content'][number] => ({ type: 'text', text: t });

function errorResult(code: string, message: string, extra: Record<string, unknown> = {}): CallToolResult {
  return { isError: true, content: [text(`${code}: ${message}`)], _meta: { [ERROR_META_KEY]: { code, message, ...extra } } };
}

function okResult(call: CallResult & { status: 'ok' }): CallToolResult {
  const json = JSON.stringify(call.result ?? null) ?? 'null';
  return {
    content: [text(json)],
    ...(isPlainObject(call.result) ? { structuredContent: call.result } : {}),
    _meta: { [CALL_META_KEY]: { callId: call.callId, provider: call.provider, attempts: call.attempts, durationMs: call.durationMs } },
  };
}

/** The tool error for a call waiting for approval: its id, why, and how to approve it. */
export function pendingApprovalResult(approval: ApprovalView, note?: string): CallToolResult {
  const message =
    `The call to "${approval.tool}" needs approval (${approval.reason}); nothing ran. ` +
    `Approval id: ${approval.id} (expires ${approval.expiresAt}). ` +
    `Approve with \`toolcap approvals approve ${approval.id}\` or POST /approvals/${approval.id}/approve on the toolcap server; ` +
    `the approved call then runs exactly these arguments once.${note ? ` ${note}` : ''}`;
  return errorResult('APPROVAL_REQUIRED', message, { approvalId: approval.id, reason: approval.reason, expiresAt: approval.expiresAt, tool: approval.tool });
}

function callErrorResult(error: CallError): CallToolResult {
  const { pointer, problems, retryAfterMs, callId } = error.extra;
  return errorResult(error.code, error.message, {
    ...(pointer !== undefined ? { pointer } : {}),
    ...(problems ? { problems } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    ...(callId !== undefined ? { callId } : {}),
  });
}

/**
 * One MCP server over the registry and runtime. Connect it to a transport
 * (`await gateway.server.connect(transport)`); wire
 * `notifyToolsChanged` to the registry's reloads.
 */
export function createGatewayServer(options: GatewayOptions): Gateway {
  const { registry, runtime, persona } = options;
  const server = new Server(
    { name: options.name ?? 'toolcap', version: options.version ?? toolcapVersion() },
    {
      capabilities: { tools: { listChanged: true } },
      instructions:
        'Tools from the toolcap registry. Each tool carries MCP annotations and a _meta["toolcap.dev/capability"] block (mode, side effects, risk, reversibility, approval). Calls that need human approval ask through elicitation when supported, else fail with an approval id to approve out of band.',
    },
  );
  const elicitationTimeoutMs = options.elicitationTimeoutMs ?? 600_000;
  const callerOf = () => options.caller ?? (server.getClientVersion()?.name ? `mcp:${server.getClientVersion()?.name}` : MCP_APPROVER);

  server.setRequestHandler(ListToolsRequestSchema, (request): ListToolsResult => {
    const cursor = request.params?.cursor;
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    let tools: Tool[];
    try {
      tools = gatewayTools(registry, persona);
    } catch (error) {
      throw new McpError(ErrorCode.InternalError, `The catalog is not available: ${errorMessage(error)}`);
    }
    const start = after === undefined ? 0 : tools.findIndex((t) => t.name > after);
    const rest = start < 0 ? [] : tools.slice(start);
    const page = rest.slice(0, MCP_PAGE_SIZE);
    const last = page.at(-1);
    return { tools: page.map(mcpToolOf), ...(rest.length > MCP_PAGE_SIZE && last ? { nextCursor: encodeCursor(last.name) } : {}) };
  });

  /** Ask the client's user; the call's result, or undefined when no decision was made (fall back to the approval-id error). */
  const decideByElicitation = async (approval: ApprovalView, signal: AbortSignal): Promise<CallToolResult | undefined> => {
    if (server.getClientCapabilities()?.elicitation?.form === undefined) return undefined;
    let answer;
    try {
      answer = await server.elicitInput(
        {
          mode: 'form',
          message:
            `Approve the call to "${approval.tool}"?\n` +
            `Why approval is needed: ${approval.reason}\n` +
            `Arguments: ${JSON.stringify(approval.arguments, null, 2)}\n` +
            `Approval id: ${approval.id}`,
          requestedSchema: {
            type: 'object',
            properties: {
              approve: { type: 'boolean', title: `Run ${approval.tool}`, description: 'Yes runs exactly this call once; no denies it.', default: false },
            },
            required: ['approve'],
          },
        },
        { signal, timeout: elicitationTimeoutMs },
      );
    } catch {
      return undefined;
    }
    if (answer.action === 'cancel') return undefined;
    if (answer.action === 'accept' && answer.content?.['approve'] === true) {
      const done = await runtime.approve(approval.id, { by: MCP_APPROVER, note: 'approved through MCP elicitation' });
      if (done.call?.status === 'ok') return okResult(done.call);
      if (done.error) return callErrorResult(done.error);
      return errorResult('PROVIDER_ERROR', `Approval ${approval.id} was approved but the call gave no result.`, { approvalId: approval.id });
    }
    await runtime.deny(approval.id, { by: MCP_APPROVER, note: 'denied through MCP elicitation' });
    return errorResult('APPROVAL_DENIED', `The call to "${approval.tool}" was denied by the user (approval ${approval.id}); nothing ran.`, { approvalId: approval.id });
  };

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    try {
      const result = await runtime.call(name, args, { ...(persona !== undefined ? { persona } : {}), caller: callerOf(), signal: extra.signal });
      if (result.status === 'ok') return okResult(result);
      const decided = await decideByElicitation(result.approval, extra.signal).catch((error: unknown) =>
        error instanceof CallError ? callErrorResult(error) : undefined,
      );
      return decided ?? pendingApprovalResult(result.approval);
    } catch (error) {
      if (error instanceof CallError) {
        // unknown (or hidden, or disabled) tool: a protocol error, as the MCP spec asks
        if (error.code === 'TOOL_NOT_FOUND' || error.code === 'TOOL_DISABLED') throw new McpError(ErrorCode.InvalidParams, error.message, { code: error.code, tool: name });
        // everything else, invalid arguments included: a tool error the model can read and act on
        return callErrorResult(error);
      }
      return errorResult('INTERNAL', errorMessage(error));
    }
  });

  return {
    server,
    notifyToolsChanged() {
      if (!server.transport) return;
      server.sendToolListChanged().catch(() => undefined);
    },
    close: () => server.close(),
  };
}

// --- Streamable HTTP -------------------------------------------------------

export interface McpHttpOptions extends Omit<GatewayOptions, 'persona'> {
  /** The persona when a session names none (`?persona=` or `x-toolcap-persona`). @default none: shared tools */
  persona?: string;
  /** Hosts allowed in the Host header (DNS rebinding protection); unset: no check. */
  allowedHosts?: string[];
  /** Origins allowed in the Origin header; unset: no check. */
  allowedOrigins?: string[];
  /** Largest accepted request body, bytes. @default 4 MiB */
  maxBodyBytes?: number;
}

/** A Streamable HTTP endpoint: a `(Request) => Promise<Response>` with session control. */
export type McpHttpHandler = ((request: Request) => Promise<Response>) & {
  /** Send `notifications/tools/list_changed` to every open session. */
  notifyAll(): void;
  /** Open sessions. */
  readonly sessionCount: number;
  /** Close every session. */
  close(): Promise<void>;
};

const jsonRpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), { status, headers: { 'content-type': 'application/json', ...headers } });

/**
 * Streamable HTTP (MCP 2025-03-26+) for a route such as `/mcp`: stateful
 * sessions, one gateway server per session. A POST `initialize` without a
 * session opens one (its persona from `?persona=` or the
 * `x-toolcap-persona` header, fixed for the session); later requests carry
 * `mcp-session-id`; DELETE closes the session.
 * @example
 * const mcp = mcpHttpHandler({ registry, runtime });
 * app.all('/mcp', (c) => mcp(c.req.raw));
 */
export function mcpHttpHandler(options: McpHttpOptions): McpHttpHandler {
  const sessions = new Map<string, { transport: WebStandardStreamableHTTPServerTransport; gateway: Gateway }>();
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  let closed = false;

  const open = async (request: Request, body: unknown): Promise<Response> => {
    const url = new URL(request.url);
    const persona = url.searchParams.get('persona') ?? request.headers.get('x-toolcap-persona') ?? options.persona;
    const { persona: _default, allowedHosts, allowedOrigins, maxBodyBytes: _max, ...gatewayOptions } = options;
    const gateway = createGatewayServer({ ...gatewayOptions, ...(persona ? { persona } : {}) });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // a POST gets its answer as one JSON body, not an event stream: one round trip, no SSE framing;
      // server-initiated messages (list_changed, elicitation) use the session's GET stream
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, gateway });
      },
      ...(allowedHosts || allowedOrigins
        ? { enableDnsRebindingProtection: true, ...(allowedHosts ? { allowedHosts } : {}), ...(allowedOrigins ? { allowedOrigins } : {}) }
        : {}),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await gateway.server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody: body });
    // initialize failed (bad params): no session was made, drop the server
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await gateway.close().catch(() => undefined);
    return response;
  };

  const handle = async (request: Request): Promise<Response> => {
    try {
      if (closed) return jsonRpcError(503, ErrorCode.ConnectionClosed, 'The MCP endpoint is shutting down.');
      const sessionId = request.headers.get('mcp-session-id');
      if (sessionId) {
        const session = sessions.get(sessionId);
        if (!session) return jsonRpcError(404, -32001, 'Session not found: it was closed or never existed. Initialize a new one.');
        return await session.transport.handleRequest(request);
      }
      if (request.method !== 'POST') {
        if (request.method === 'GET' || request.method === 'DELETE') return jsonRpcError(400, ErrorCode.ConnectionClosed, 'Bad Request: no mcp-session-id header; initialize a session with a POST first.');
        return jsonRpcError(405, ErrorCode.ConnectionClosed, `Method ${request.method} not allowed.`, { allow: 'GET, POST, DELETE' });
      }
      const declared = Number(request.headers.get('content-length') ?? '0');
      if (declared > maxBody) return jsonRpcError(413, ErrorCode.InvalidRequest, `Request body larger than ${maxBody} bytes.`);
      const raw = await request.text();
      if (Buffer.byteLength(raw) > maxBody) return jsonRpcError(413, ErrorCode.InvalidRequest, `Request body larger than ${maxBody} bytes.`);
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        return jsonRpcError(400, ErrorCode.ParseError, 'Parse error: the body is not JSON.');
      }
      const messages = Array.isArray(body) ? (body as unknown[]) : [body];
      if (!messages.some((m) => isInitializeRequest(m))) return jsonRpcError(400, ErrorCode.ConnectionClosed, 'Bad Request: no mcp-session-id header and not an initialize request.');
      return await open(request, body);
    } catch (error) {
      return jsonRpcError(500, ErrorCode.InternalError, `Internal error: ${errorMessage(error)}`);
    }
  };

  return Object.defineProperties(handle, {
    notifyAll: {
      value: () => {
        for (const { gateway } of sessions.values()) gateway.notifyToolsChanged();
      },
    },
    sessionCount: { get: () => sessions.size },
    close: {
      value: async () => {
        closed = true;
        const all = [...sessions.values()];
        sessions.clear();
        await Promise.all(all.map(({ gateway }) => gateway.close().catch(() => undefined)));
      },
    },
  }) as McpHttpHandler;
}
