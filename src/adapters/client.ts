/**
 * What an agent-framework adapter needs from toolcap, one interface with two
 * back ends: a toolcap in this process (its registry and runtime, as
 * `createToolcap()` gives them) and a running `toolcap serve` over HTTP.
 * Neither can decide an approval: the interface has no approve or deny, so an
 * adapter (and the agent driving it) can only ask for one and read the
 * decision a person made in toolcap.
 * @module
 */
import type { Tool } from '../model/schema.js';
import type { Registry } from '../registry/registry.js';
import type { ApprovalRule, ApprovalView, CallContext, CallResult, Runtime } from '../runtime/runtime.js';

/** Who the adapter calls as: the toolcap persona, catalog agent and caller id for the audit log. */
export interface AdapterIdentity {
  persona?: string;
  agent?: string;
  caller?: string;
}

/** A toolcap as adapters use it: list, call, and read approvals (never decide them). */
export interface ToolcapClient {
  /** The tools this identity may call (enabled, persona-scoped as the gateway lists them), by name. */
  tools(): Promise<Tool[]>;
  /** The configured approval rules, when this client knows them (in process); over HTTP the manifest alone decides up front. */
  readonly rules?: readonly ApprovalRule[];
  /** The persona calls are made as. */
  readonly persona?: string | undefined;
  /** Call a tool: its result, or the pending approval it waits for; rejects with a {@link ToolcapClientError}. */
  call(name: string, args: unknown, options?: { signal?: AbortSignal }): Promise<CallResult>;
  /** One approval as it stands. */
  approval(id: string): Promise<ApprovalView>;
  /** The approval once decided and run, or as it stands after `timeoutMs`. */
  waitForApproval(id: string, timeoutMs: number, signal?: AbortSignal): Promise<ApprovalView>;
}

/** A refusal or failure from toolcap, with its code (`INVALID_ARGUMENTS`, `TOOL_NOT_FOUND`, `HTTP_502`, ...). */
export class ToolcapClientError extends Error {
  override readonly name = 'ToolcapClientError';
  constructor(
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** A CallError (or any error with a string `code`) as a {@link ToolcapClientError}. */
function asClientError(error: unknown): unknown {
  if (error instanceof ToolcapClientError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && typeof code === 'string') return new ToolcapClientError(code, error.message);
  return error;
}

/** The parts of an opened toolcap (the `Toolcap` of `toolcap/host`) an in-process client uses. */
export interface InProcessToolcap {
  readonly registry: Registry;
  readonly runtime: Runtime;
  /** The config it was opened with: its `approvals.rules` tell adapters which calls need approval beyond the manifests. */
  readonly config?: { readonly approvals?: { readonly rules?: ApprovalRule[] | undefined } | undefined } | undefined;
}

/**
 * A client over a toolcap in this process. Calls carry no principal (a
 * trusted in-process caller) and the identity's persona, agent and caller.
 * @example const client = inProcessClient(await createToolcap('toolcap.config.yaml'), { persona: 'ops', caller: 'agent:triage' });
 */
export function inProcessClient(toolcap: InProcessToolcap, identity: AdapterIdentity = {}): ToolcapClient {
  const context: CallContext = {
    ...(identity.persona !== undefined ? { persona: identity.persona } : {}),
    ...(identity.agent !== undefined ? { agent: identity.agent } : {}),
    ...(identity.caller !== undefined ? { caller: identity.caller } : {}),
  };
  const guarded = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw asClientError(error);
    }
  };
  const rules = toolcap.config?.approvals?.rules;
  return {
    persona: identity.persona,
    ...(rules ? { rules } : {}),
    tools: () => guarded(async () => [...toolcap.registry.snapshot().callableTools(identity.persona)]),
    call: (name, args, options = {}) => guarded(() => toolcap.runtime.call(name, args, { ...context, ...(options.signal ? { signal: options.signal } : {}) })),
    approval: (id) => guarded(() => toolcap.runtime.getApproval(id)),
    waitForApproval: (id, timeoutMs, signal) => guarded(() => toolcap.runtime.waitForApproval(id, timeoutMs, signal)),
  };
}

/** Where a running `toolcap serve` is and how to reach it. */
export interface HttpClientOptions extends AdapterIdentity {
  /** The server's base URL: `http://127.0.0.1:4317`. */
  url: string;
  /** An API key or access token, sent as `Authorization: Bearer`. @default process.env.TOOLCAP_API_KEY */
  apiKey?: string;
  /** How often a wait asks for the approval again (ms). @default 500 */
  pollMs?: number;
  fetch?: typeof fetch;
}

/** Statuses after which an approval no longer changes. */
const SETTLED = new Set(['denied', 'expired', 'void', 'executed', 'failed', 'interrupted']);

/**
 * A client over a running `toolcap serve` (the HTTP API of docs/http.md).
 * @example const client = httpClient({ url: 'http://127.0.0.1:4317', persona: 'ops' });
 */
export function httpClient(options: HttpClientOptions): ToolcapClient {
  const doFetch = options.fetch ?? fetch;
  const base = options.url.endsWith('/') ? options.url : `${options.url}/`;
  const key = options.apiKey ?? process.env['TOOLCAP_API_KEY'];
  const pollMs = options.pollMs ?? 500;
  async function request(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<{ status: number; body: Record<string, unknown> }> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (key) headers['authorization'] = `Bearer ${key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await doFetch(new URL(path, base), { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}), ...(signal ? { signal } : {}) });
    } catch (error) {
      throw new ToolcapClientError('UNREACHABLE', `Cannot reach toolcap at ${base}: ${(error as Error).message}`);
    }
    const json = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (json === undefined || typeof json !== 'object') throw new ToolcapClientError(`HTTP_${res.status}`, `${base} answered ${res.status} without a JSON body; is it a toolcap server?`);
    if (res.status >= 400) {
      const code = typeof json['code'] === 'string' ? json['code'] : `HTTP_${res.status}`;
      throw new ToolcapClientError(code, typeof json['detail'] === 'string' ? json['detail'] : String(json['title'] ?? code), json);
    }
    return { status: res.status, body: json };
  }
  const approval = async (id: string, signal?: AbortSignal) => (await request('GET', `approvals/${encodeURIComponent(id)}`, undefined, signal)).body as unknown as ApprovalView;
  return {
    persona: options.persona,
    async tools() {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const params = new URLSearchParams({ enabled: 'true', limit: '1000' });
        if (options.persona !== undefined) params.set('persona', options.persona);
        if (options.agent !== undefined) params.set('agent', options.agent);
        if (cursor !== undefined) params.set('cursor', cursor);
        const page = (await request('GET', `tools?${params}`)).body as { tools?: Array<{ tool: Tool }>; nextCursor?: string };
        for (const view of page.tools ?? []) {
          // without a persona the gateway's rule: shared tools only
          if (options.persona === undefined && (view.tool.scope?.personas?.length ?? 0) > 0) continue;
          tools.push(view.tool);
        }
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return tools;
    },
    async call(name, args, callOptions = {}) {
      const body = {
        arguments: args ?? {},
        ...(options.persona !== undefined ? { persona: options.persona } : {}),
        ...(options.agent !== undefined ? { agent: options.agent } : {}),
        ...(options.caller !== undefined ? { caller: options.caller } : {}),
      };
      return (await request('POST', `tools/${encodeURIComponent(name)}/call`, body, callOptions.signal)).body as unknown as CallResult;
    },
    approval: (id) => approval(id),
    async waitForApproval(id, timeoutMs, signal) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const view = await approval(id, signal);
        if (SETTLED.has(view.status) || Date.now() >= deadline || signal?.aborted) return view;
        await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, Math.max(0, deadline - Date.now()))));
      }
    },
  };
}
