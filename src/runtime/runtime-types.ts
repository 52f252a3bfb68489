/**
 * The runtime's public types: its options, the context of a call and what a
 * call gives back. `runtime.ts` re-exports them.
 * @module
 */
import type { Tracer } from '@opentelemetry/api';
import type { Registry } from '../registry/registry.js';
import type { Store } from '../store/types.js';
import type { ApprovalRule } from './approval-rules.js';
import type { ApprovalView } from './approvals.js';
import type { Redactor } from './containment/redact.js';
import type { HealthBook } from './health.js';
import type { Principal } from './identity/principal.js';
import type { RateLimitConfig } from './identity/rate-limit.js';
import type { ProviderResolver } from './provider-slots.js';
import type { ProviderEnvironment } from './providers/types.js';
import type { CallMetrics } from './telemetry.js';
import type { ToolServices } from './tool-services.js';
import type { OAuthVault } from './oauth/vault.js';

/** What a runtime is built from; everything but registry, store and providers has a default. */
export interface RuntimeOptions {
  registry: Registry;
  store: Store;
  providers: ProviderResolver;
  /** Extra approval rules (config `approvals.rules`). */
  rules?: ApprovalRule[];
  /** How long an approval stays valid. @default 3600 */
  approvalTtlSec?: number;
  health?: HealthBook;
  tracer?: Tracer;
  metrics?: CallMetrics;
  environment?: Partial<ProviderEnvironment>;
  /** Attempts per call for retryable failures (safe tools, guarded with a key). @default 3 */
  maxAttempts?: number;
  /** Pause before retry n (ms): base * 2^(n-1) with jitter. @default 100 */
  retryBaseMs?: number;
  clock?: () => number;
  random?: () => number;
  /** Told of store failures that did not fail the call (recording after a non-gated call). */
  onWarning?: (message: string) => void;
  /** Calls per window for each principal (calls with a principal only); absent: no limit. */
  rateLimit?: RateLimitConfig;
  /** Persona names known beyond the catalog's and the rules' (config); an unknown persona is UNKNOWN_PERSONA. */
  personas?: string[];
  /** Every requester may approve its own requests (single-user setups); a rule's `selfApproval` wins. @default false */
  selfApproval?: boolean;
  /** MCP elicitation may decide approvals; a rule's `elicitation` wins. @default only for tools whose mode is `read` */
  elicitation?: boolean;
  /**
   * Applied to everything the runtime lets out: call errors, audit rows,
   * span attributes and status, warnings. @default the values, in the
   * environment, of every variable the catalog's manifests name, plus token
   * shapes (secrets.ts; rebuilt when the catalog reloads)
   */
  redactor?: Redactor;
  /** Tools' configurations, SQL databases and result checks. @default new ToolServices({ env, databases: defaultToolDatabases(store) }): no settings, results `warn`, tool databases beside an SQLite store */
  services?: ToolServices;
  /** OAuth connections (docs/oauth.md): a tool declaring OAuth services is refused unless they are connected, and its provider gets their tokens. */
  oauth?: OAuthVault;
}

/** Who calls, as whom, and how. */
export interface CallContext {
  persona?: string;
  /**
   * The catalog agent the caller acts for: the call is refused
   * (AGENT_FORBIDDEN, UNKNOWN_AGENT) unless the tool is in that agent's view
   * (query/agent-view.ts). It only narrows what the persona allows.
   */
  agent?: string;
  /**
   * The authenticated caller. When present it must be allowed to call, is
   * rate limited, may use only its granted personas (none asked: its
   * default), and is the audit actor and the approval's requester.
   * Absent: a trusted in-process caller, as before identities existed.
   */
  principal?: Principal;
  /** Who asks (user or agent id), for the audit log and the reviewer; ignored when there is a principal. */
  caller?: string;
  /** The job this call serves, for job health. */
  job?: string;
  /** Given by a retrying caller to make a guarded tool retryable; made up when the tool takes one and none is given. */
  idempotencyKey?: string;
  /** The caller gives up: aborts the call. */
  signal?: AbortSignal;
  /**
   * The id of the search answer the tool was chosen from (selections.ts):
   * the span and audit record what it was selected over. An id this caller
   * was not given is recorded as not found.
   */
  selection?: string;
}

/** A call's result, or the approval it waits for. */
export type CallResult =
  | { status: 'ok'; callId: string; tool: string; provider: string; attempts: number; durationMs: number; result: unknown; skipped: string[] }
  | { status: 'pending_approval'; callId: string; tool: string; approval: ApprovalView };
