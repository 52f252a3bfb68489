/**
 * Providers: the ways a tool can be run. A tool's manifest lists providers
 * (`providers: [{ name, priority, config }]`); the router tries them in
 * ascending priority. Each provider *type* (`module`, `http`, `command`,
 * `mcp`, or a custom one) is a factory turning one manifest entry into a
 * runnable {@link ProviderInstance}. All types pass one contract suite
 * (`test/runtime/providers/contract.ts`).
 *
 * Which type a manifest entry is: `config.type` when given, else the entry's
 * `name` when a type of that name is registered (`{ name: "mcp", config:
 * { server, tool } }`, as in ATLAS static wrappers). A tool without providers
 * but with `implementation.module` runs through the `module` type.
 * @module
 */
import type { Provider, Tool } from '../../model/schema.js';
import type { CrossOriginRedirects } from '../containment/redirects.js';
import type { ResourceLimitName } from '../containment/resource-limits.js';
import type { ToolSql } from '../../store/tool-db-types.js';

/** What a provider gets for one call attempt. */
export interface ProviderCallContext {
  /** Aborted on timeout or when the caller gives up: stop work and reject. */
  signal: AbortSignal;
  /** Unique per call (the same across retries of one call). */
  callId: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** The tool as the caller's persona sees it. */
  tool: Tool;
  persona?: string;
  /** Present when the tool takes an idempotency key and the caller gave one (or toolcap made one). */
  idempotencyKey?: string;
  /** The tool's configuration values (`configSchema`, Shinkai `configurations`; config `tools.<name>.configurations`). */
  configurations?: Readonly<Record<string, unknown>>;
  /** The tool's own SQL database, when it declares `storage.sqlTables`/`sqlQueries` (runtime/tool-storage.ts). */
  sql?: ToolSql;
  /** The tool's OAuth access tokens by service name (docs/oauth.md); present when the tool declares OAuth services, all connected. */
  oauth?: Readonly<Record<string, ProviderOAuthToken>>;
}

/** One OAuth service's access token as a provider gets it (never logged: the call's redactor knows it). */
export interface ProviderOAuthToken {
  accessToken: string;
  /** `bearer` for the usual token. */
  tokenType: string;
  expiresAt?: string;
  scope?: string;
}

/** The outcome of a health check. */
export interface HealthCheckResult {
  healthy: boolean;
  /** Why not healthy (e.g. `GOOGLE_API_KEY is not set`). */
  reason?: string;
  /**
   * What works, but less safely than declared (e.g. `execution.resources.memoryMb
   * is not enforced: no prlimit`). Shown with health; never makes a provider unhealthy.
   */
  warnings?: string[];
}

/** A provider ready to run calls. */
export interface ProviderInstance {
  /** The manifest entry's name (e.g. `google_cse`, `mcp`). */
  readonly name: string;
  /** The provider type that made it (`module`, `http`, `command`, `mcp`, ...). */
  readonly type: string;
  /**
   * Run the tool. Resolves to the tool's result (any JSON value). Rejects
   * with a {@link ProviderError} saying whether the failure provably
   * happened before any side effect (`beforeEffect`), which decides whether
   * a `guarded` tool may be retried.
   */
  call(args: Record<string, unknown>, context: ProviderCallContext): Promise<unknown>;
  /**
   * Declarative health: what can be known without calling (required env
   * vars present, a module that loads). Cheap; may be called before every
   * routing decision.
   */
  ready?(): HealthCheckResult;
  /** Active health check (a check function or URL). Called by the router every `healthCheckIntervalSec`. */
  check?(signal: AbortSignal): Promise<HealthCheckResult>;
  /** Seconds between active checks, from the manifest entry. */
  readonly healthCheckIntervalSec?: number;
  /** Release resources (child processes, connections). */
  close?(): Promise<void>;
  /** The tool's version left the serving catalog (a reload): release resources once the calls under way finish. Absent: `close()`. */
  retire?(): void;
  /**
   * The `execution.resources` limits this instance applies to what it runs
   * (`memoryMb`, `cpuSec`, `openFiles`; containment/resource-limits.ts).
   * Every other declared resource is reported as not enforced, in its health
   * warnings (containment/resource-report.ts). Absent: none.
   */
  readonly enforcedResourceLimits?: readonly ResourceLimitName[];
  /**
   * A stable hash of the code a call will run, apart from the manifest:
   * for `command` the resolved executable, its file's sha256 and the args
   * (and the files they name); for `http` the resolved method, URL template
   * and origin; for `mcp` the server's identity and the tool's input
   * schema. An approval is bound to the manifest hash and this; when it
   * changes, pending approvals are void. Absent: the manifest is all there is.
   * @example await instance.codeIdentity?.() // 'command:9f86d08…'
   */
  codeIdentity?(): Promise<string>;
}

/** The egress section a provider gets from config. */
export interface ProviderEgress {
  /** Hosts, `*.domain`, `*`, IPs and CIDRs HTTP requests may reach (see containment/egress.ts). */
  allow: string[];
  /** A redirect to another origin: followed without credentials, or refused. @default 'drop-credentials' */
  crossOriginRedirects?: CrossOriginRedirects;
}

/** Where a provider factory may look things up. */
export interface ProviderEnvironment {
  /** Environment variables (credentials). @default process.env */
  env: Readonly<Record<string, string | undefined>>;
  /** Folder relative module paths and commands resolve from (the manifest's folder, else the config's). */
  baseDir: string;
  /**
   * Where `http` providers may connect. Absent: only the hosts of the
   * provider's own `baseUrl` and `healthUrl` (`defaultEgressAllow()`: the
   * loopback and private IPs a manifest names itself are allowed, link-local
   * and metadata addresses need an explicit entry).
   */
  egress?: ProviderEgress;
  /** Largest HTTP response body read, in bytes. @default 10 MiB (DEFAULT_MAX_BODY_BYTES) */
  maxResponseBytes?: number;
  /** Absolute folders besides the manifest's own that `module` tools may load from. */
  trustedModuleDirs?: string[];
  /** How `module` tools run unless a tool opts into `inline`. @default 'worker' */
  moduleIsolation?: 'worker' | 'inline';
  /** Base URLs by provider type (`google_cse`, `serpapi`, `openai`): a proxy or stand-in the operator sets; wins over the manifest's `baseUrl`. */
  baseUrls?: Readonly<Record<string, string>>;
}

/** A provider type. */
export interface ProviderType {
  readonly type: string;
  /**
   * Make an instance for one manifest entry of one tool. Throws a
   * {@link ProviderConfigError} when the entry's config is unusable (the
   * router then treats the provider as unhealthy, with that reason).
   */
  create(entry: Provider, tool: Tool, environment: ProviderEnvironment): ProviderInstance;
}

/** Why a provider call failed. */
export type ProviderErrorCode =
  | 'PROVIDER_ERROR' // the tool ran and failed, or the provider answered an error
  | 'PROVIDER_UNAVAILABLE' // could not reach or start the provider: nothing ran
  | 'BAD_RESPONSE' // the provider answered something unusable
  | 'RESPONSE_TOO_LARGE' // the answer passed the size limit (maxResponseBytes, maxOutputBytes)
  | 'EGRESS_DENIED' // the egress policy refused a host, address or redirect
  | 'ABORTED'; // the signal aborted (timeout or caller)

/**
 * Whose fault a provider failure is. `caller`: the provider worked and
 * refused the caller's input (an HTTP 4xx other than 408, 425 and 429, an
 * MCP tool result with `isError`). `provider`: everything else (connection
 * refused, DNS, timeout, 5xx, a crash, a signal, an MCP server that exited,
 * a process that could not start). Only provider faults move the circuit
 * breaker, so a caller cannot trip a tool for everyone with bad input.
 */
export type ProviderFault = 'provider' | 'caller';

/** HTTP 4xx statuses that say "not now" rather than "not this": the provider's side. */
const TRANSIENT_4XX: ReadonlySet<number> = new Set([408, 425, 429]);

/**
 * The one rule for {@link ProviderFault}, from what a failure carries: its
 * HTTP status (exit codes stay below 256 and JSON-RPC codes are negative, so
 * only an HTTP answer is in 400-499), and its detail (an MCP tool result
 * with `isError: true`).
 * @example providerFault(422, undefined) // 'caller'
 * @example providerFault(503, undefined) // 'provider'
 */
export function providerFault(status: number | undefined, detail: unknown): ProviderFault {
  if (status !== undefined && status >= 400 && status <= 499 && !TRANSIENT_4XX.has(status)) return 'caller';
  if (typeof detail === 'object' && detail !== null && (detail as { isError?: unknown }).isError === true) return 'caller';
  return 'provider';
}

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    readonly code: ProviderErrorCode,
    message: string,
    /** True when the failure provably happened before the tool could have had any effect (connection refused, spawn failed, HTTP 503 before processing...). */
    readonly beforeEffect: boolean,
    /** `fault` overrides the status rule where the provider knows better (a quota 403 is the provider's, web-search.ts). */
    options?: ErrorOptions & { status?: number; detail?: unknown; fault?: ProviderFault },
  ) {
    super(message, options);
    this.status = options?.status;
    this.detail = options?.detail;
    this.fault = code === 'ABORTED' ? 'provider' : (options?.fault ?? providerFault(this.status, this.detail));
  }
  /** HTTP status, exit code, or JSON-RPC error code, when there was one. */
  readonly status: number | undefined;
  readonly detail: unknown;
  /** Whose fault the failure is (see {@link providerFault}); a caller fault does not move the circuit. */
  readonly fault: ProviderFault;
}

/** A manifest entry a provider type cannot use. */
export class ProviderConfigError extends Error {
  override readonly name = 'ProviderConfigError';
}
