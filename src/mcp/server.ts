/**
 * The MCP gateway server: the registry's tools served to MCP clients (Claude
 * Desktop, IDE agents, the SDK's `Client`) over any SDK transport.
 *
 * - `tools/list`: the persona's callable tools, paged (./tool-list.ts), each
 *   projected to an MCP tool (./projection.ts).
 * - `tools/call`: arguments nested deeper than the HTTP API allows
 *   (./nesting.ts) are a JSON-RPC InvalidParams error; then `runtime.call`,
 *   so persona scope, argument validation, approvals, provider failover,
 *   timeouts, retries and audit all apply. A
 *   call that needs approval is put to the user through elicitation when the
 *   client supports it and the runtime allows it (./elicitation.ts), else
 *   answered with a tool error naming the approval id (./call-results.ts).
 * - Who asks: with a principal (authenticated over HTTP, or the stdio
 *   user's), the session's persona is resolved for it by the runtime (exact
 *   names, granted only), every call carries it, and the gateway also lists
 *   `toolcap_approval_status` (./approval-status.ts) for the outcome of its
 *   own approvals. Without one, a trusted in-process caller, as before.
 * - `notifications/tools/list_changed` after every registry reload that
 *   swapped in a new catalog: the server subscribes to the registry itself.
 * - Search mode (`tools: 'search'`, ./search-mode.ts): `tools/list` shows
 *   `toolcap_search_tools` and `toolcap_call_tool` (and the approval status
 *   tool) plus what the session's searches found; a search sends
 *   `list_changed` when it found new tools. `toolcap_call_tool` and direct
 *   calls take the same path below, for every tool the session may call.
 *
 * Streamable HTTP sessions are in ./http.ts. See docs/mcp.md.
 * @module
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../model/errors.js';
import type { HealthSource } from '../model/health.js';
import { toolcapVersion } from '../model/version.js';
import type { Tool } from '../model/schema.js';
import { agentView, NOTHING } from '../query/agent-view.js';
import type { Registry } from '../registry/registry.js';
import { requireAgent } from '../runtime/agent-gate.js';
import { CallError } from '../runtime/errors.js';
import { can, type Principal } from '../runtime/identity/principal.js';
import type { Runtime } from '../runtime/runtime.js';
import { APPROVAL_STATUS_TOOL, approvalStatus, approvalStatusTool } from './approval-status.js';
import { setCallToolHandler } from './call-handler.js';
import { callErrorResult, errorResult, okResult, pendingApprovalResult } from './call-results.js';
import { clientGone, clientGoneLine } from './client-abort.js';
import { decideByElicitation, MCP_APPROVER } from './elicitation.js';
import { MAX_ARGUMENT_DEPTH, nestingDepth } from './nesting.js';
import { answerSearch, type SearchRanking } from './search-answer.js';
import { gatewayNames, type GatewayNameMode } from './gateway-names.js';
import { selectionOfMeta, withSelectionId } from './selection-meta.js';
import { CALL_TOOL, FoundTools, parseCallArgs, parseSearchArgs, SEARCH_TOOL, searchModePage, type GatewayToolsMode } from './search-mode.js';
import { listToolsPage } from './tool-list.js';

/** What a gateway serves, and to whom. */
export interface GatewayOptions {
  registry: Registry;
  runtime: Runtime;
  /** The persona whose tools are served; none: the shared tools only (with a principal: its default persona). */
  persona?: string;
  /**
   * The catalog agent the session acts for: `tools/list`, search and calls
   * are narrowed to its view within the persona's (query/agent-view.ts);
   * a call outside it is a JSON-RPC InvalidParams error AGENT_FORBIDDEN.
   */
  agent?: string;
  /**
   * Who is asking (authenticated over HTTP, or the local user's for stdio).
   * The persona must be granted to it, it is the audit actor and the
   * requester of approvals, four eyes applies to its elicitation answers.
   * Absent: a trusted in-process caller.
   */
  principal?: Principal;
  /** The config file of the serving toolcap, named in the approve command of a pending answer. */
  configPath?: string;
  /** How a person runs toolcap where it serves, for that approve command (the CLI's `invocation()`). @default 'toolcap' */
  command?: string;
  /**
   * What `tools/list` shows: `full`, every tool the session may call;
   * `search`, only `toolcap_search_tools` and `toolcap_call_tool` (and the
   * approval status tool) plus the tools the session's searches found.
   * Either way every tool the session may call can be called. @default "full"
   */
  tools?: GatewayToolsMode;
  /** The names tools are listed and called under: canonical, or openai-safe (`notes_append` for `notes.append`; gateway-names.ts). @default 'canonical' */
  names?: GatewayNameMode;
  /** Ranking of `toolcap_search_tools` (the config's `ranking`, as `/search` uses it). @default DEFAULT_RANK_WEIGHTS, task risk 1 */
  ranking?: SearchRanking;
  /** Observed health shown with search matches. @default the runtime's health book */
  health?: HealthSource;
  /** Who calls, for the audit log. @default "mcp:<client name>" from the client's initialize, else "mcp-client" */
  caller?: string;
  /** Server name in `initialize`. @default "toolcap" */
  name?: string;
  /** Server version in `initialize`. @default the toolcap version */
  version?: string;
  /** How long to wait for the user to answer an approval elicitation. @default 600000 (10 min) */
  elicitationTimeoutMs?: number;
  /**
   * Where the server's protocol errors go, one line each (an answer that
   * could not be sent because its client went away, a malformed
   * notification). @default nothing
   */
  warn?: (message: string) => void;
}

/** One gateway server and its controls. */
export interface Gateway {
  server: Server;
  /** Send `notifications/tools/list_changed` now (nothing when not connected). Never throws. Reloads send it on their own. */
  notifyToolsChanged(): void;
  /** Close the server and stop listening to the registry. */
  close(): Promise<void>;
}

const INSTRUCTIONS =
  'Tools from the toolcap registry. Each tool carries MCP annotations and a _meta["toolcap.dev/capability"] block (mode, side effects, risk, reversibility, approval). Calls that need human approval ask through elicitation where allowed, else fail with an approval id for a person to approve out of band; toolcap_approval_status, when listed, gives its status and, once run, its result.';
const SEARCH_INSTRUCTIONS = `${INSTRUCTIONS} The catalog is not listed: find tools with ${SEARCH_TOOL} (a task in words); the matches join tools/list (list_changed), or call any tool by name with ${CALL_TOOL}.`;

/** Why a call is refused as a protocol error (InvalidParams) rather than a tool error: unknown tool, arguments too deep. */
interface Refusal {
  refused: { message: string; data: Record<string, unknown> & { code: string } };
}
const isRefusal = (r: CallToolResult | Refusal): r is Refusal => 'refused' in r && !('content' in r);

/**
 * One MCP server over the registry and runtime. Connect it to a transport;
 * it tells its client when a reload changes the catalog, until closed.
 * Throws the runtime's CallError FORBIDDEN_PERSONA / UNKNOWN_PERSONA (with
 * `extra.allowed`) when the principal may not use the persona.
 * @example
 * const gateway = createGatewayServer({ registry, runtime, persona: 'ops' });
 * await gateway.server.connect(new StdioServerTransport());
 */
export function createGatewayServer(options: GatewayOptions): Gateway {
  const { registry, runtime, principal } = options;
  const persona = runtime.resolvePersona(principal, options.persona);
  const agent = options.agent;
  // an unknown agent, or one bound to another persona, refuses the session before it starts
  if (agent !== undefined) requireAgent(registry.snapshot(), agent, persona);
  /** The agent's view in the serving snapshot: a reload that removed the agent offers nothing. */
  const viewNow = () => (agent === undefined ? undefined : (agentView(registry.snapshot(), agent) ?? NOTHING));
  const keep = agent === undefined ? undefined : (tool: Tool) => viewNow()?.allows(tool) === true;
  const server = new Server(
    { name: options.name ?? 'toolcap', version: options.version ?? toolcapVersion() },
    { capabilities: { tools: { listChanged: true } }, instructions: options.tools === 'search' ? SEARCH_INSTRUCTIONS : INSTRUCTIONS },
  );
  const searchMode = options.tools === 'search';
  const names = gatewayNames(registry, options.names, [SEARCH_TOOL, CALL_TOOL, APPROVAL_STATUS_TOOL]);
  const found = new FoundTools();
  const elicitationTimeoutMs = options.elicitationTimeoutMs ?? 600_000;
  const callerOf = () => options.caller ?? (server.getClientVersion()?.name ? `mcp:${server.getClientVersion()?.name}` : MCP_APPROVER);
  const hints = {
    ...(principal !== undefined ? { statusTool: APPROVAL_STATUS_TOOL } : {}),
    ...(options.configPath !== undefined ? { configPath: options.configPath } : {}),
    ...(options.command !== undefined ? { command: options.command } : {}),
  };

  const mayList = () => principal === undefined || can(principal, 'list');
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    if (!mayList()) throw new McpError(ErrorCode.InvalidRequest, `Principal "${principal?.id}" may not list tools.`, { code: 'FORBIDDEN' });
    const own = principal !== undefined ? [approvalStatusTool] : [];
    if (searchMode) {
      const listed = searchModePage(registry.snapshot(), persona, found, request.params?.cursor, own, keep);
      return { ...listed, tools: listed.tools.map(names.list) };
    }
    const page = listToolsPage(registry, persona, request.params?.cursor, keep);
    page.tools = page.tools.map(names.list);
    // the gateway's own tool closes the last page: the catalog's paging stays as it is
    if (page.nextCursor === undefined) page.tools.push(...own);
    return page;
  });

  /** The one call path, for `tools/call` and `toolcap_call_tool` alike: runtime.call with the session's persona and principal, approvals, elicitation. */
  const callOne = async (name: string, args: Record<string, unknown>, signal: AbortSignal, selection?: string): Promise<CallToolResult | Refusal> => {
    // refused before anything walks them recursively (validation, hashing, the store)
    if (nestingDepth(args, MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH) {
      return { refused: { message: `The arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels, the most a call accepts.`, data: { code: 'ARGUMENTS_TOO_DEEP', tool: name, maxDepth: MAX_ARGUMENT_DEPTH } } };
    }
    try {
      if (principal !== undefined && name === APPROVAL_STATUS_TOOL) return await approvalStatus(runtime, principal, args);
      const context = { ...(persona !== undefined ? { persona } : {}), ...(agent !== undefined ? { agent } : {}), ...(principal !== undefined ? { principal } : {}), caller: callerOf(), signal, ...(selection !== undefined ? { selection } : {}) };
      const result = await runtime.call(name, args, context);
      if (result.status === 'ok') return okResult(result);
      const pending = (note?: string) => pendingApprovalResult(result.approval, { ...hints, ...(note !== undefined ? { note } : {}) });
      return await decideByElicitation(result.approval, { server, runtime, principal, pending, timeoutMs: elicitationTimeoutMs, signal }).catch((error: unknown) => {
        if (error instanceof CallError) return callErrorResult(error);
        return pending();
      });
    } catch (error) {
      if (error instanceof CallError) {
        // unknown (or hidden, or disabled) tool: a protocol error, as the MCP spec asks
        if (error.code === 'TOOL_NOT_FOUND') return { refused: { message: error.message, data: { code: error.code, tool: name } } };
        // outside the session agent's view: refused as a protocol error naming the rule, like a tool it cannot see
        if (error.code === 'AGENT_FORBIDDEN' || error.code === 'UNKNOWN_AGENT') return { refused: { message: error.message, data: { code: error.code, tool: name, ...error.extra } } };
        // everything else, invalid arguments included: a tool error the model can read and act on
        return callErrorResult(error);
      }
      return errorResult('INTERNAL', runtime.redactor.redactText(errorMessage(error)));
    }
  };

  /** `toolcap_search_tools`: rank, answer, and list what it found (telling the client when that changed the list). */
  const search = (args: Record<string, unknown>): CallToolResult => {
    if (principal !== undefined && !can(principal, 'search')) return errorResult('FORBIDDEN', `Principal "${principal.id}" may not search tools.`);
    const parsed = parseSearchArgs(args);
    if ('content' in parsed) return parsed;
    try {
      const scope = { snapshot: registry.snapshot(), persona, health: options.health ?? runtime.health, ranking: options.ranking ?? {}, redactor: runtime.redactor, agent: viewNow() };
      const outcome = answerSearch(scope, parsed);
      if (found.add(outcome.found) && server.transport) server.sendToolListChanged().catch(() => undefined);
      return withSelectionId(outcome.result, runtime.selections, principal, parsed.query);
    } catch (error) {
      return errorResult('INTERNAL', runtime.redactor.redactText(errorMessage(error)));
    }
  };

  /**
   * The tool a call under `asked` reaches: a listed (safe) name's real tool when the session may call it, else the
   * name as sent. The safe names are made over every tool of the snapshot, so without the check a hidden tool's safe
   * name was refused under its real name, where a name that maps to nothing is refused as sent: an oracle for which
   * tools other personas have. (No tool's real name is another's safe name, so the name as sent is an unknown one.)
   */
  const realName = (asked: string): string => {
    const real = names.real(asked);
    return real === asked || registry.snapshot().callable(real, persona) !== undefined ? real : asked;
  };

  setCallToolHandler(server, async (request, extra): Promise<CallToolResult> => {
    // a call under a listed (safe) name reaches the real tool
    const name = realName(request.params.name);
    const args = request.params.arguments ?? {};
    if (searchMode && name === SEARCH_TOOL) return search(args);
    const selection = selectionOfMeta(request.params._meta);
    if (searchMode && name === CALL_TOOL) {
      const call = parseCallArgs(args);
      if ('content' in call) return call;
      const result = await callOne(realName(call.name), call.arguments, extra.signal, selection);
      // the meta-tool's own call was well formed: what the named call was refused for is a tool error the model can act on
      if (isRefusal(result)) {
        const { code, ...data } = result.refused.data;
        return errorResult(code, result.refused.message, data);
      }
      return result;
    }
    const result = await callOne(name, args, extra.signal, selection);
    if (isRefusal(result)) throw new McpError(ErrorCode.InvalidParams, result.refused.message, result.refused.data);
    return result;
  });

  // The catalog version the client last heard of: a caller that still sends the
  // notice from its own reload hook (it runs first) does not make the client hear it twice.
  let told: number | undefined;
  const notifyToolsChanged = () => {
    if (!server.transport) return;
    told = registry.status().version;
    server.sendToolListChanged().catch(() => undefined);
  };
  const unsubscribe = registry.subscribe((event) => {
    if (event.kind === 'reloaded' && event.version !== told) notifyToolsChanged();
  });
  const warn = options.warn;
  if (warn) server.onerror = (error) => warn(clientGone(error) ? clientGoneLine('an answer', error) : `mcp: ${errorMessage(error)}`);

  // a transport that closes on its own (stdin ends, an HTTP session is deleted) ends the subscription too
  server.onclose = unsubscribe;

  return {
    server,
    notifyToolsChanged,
    close: async () => {
      unsubscribe();
      await server.close();
    },
  };
}
