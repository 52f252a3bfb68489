/**
 * The call pipeline: what happens when an agent calls a tool through
 * toolcap. One path for the library (`runtime.call`), HTTP (`POST
 * /tools/{name}/call`) and the CLI (`toolcap call`):
 *
 * admit the principal (admission.ts: may it call, its rate limit, its
 * persona) -> resolve within that persona -> validate the arguments against
 * `inputSchema` (arguments.ts) -> approval (approval-rules.ts, approvals.ts)
 * -> concurrency (`allowParallel: false` serialises) -> the router
 * (router.ts: provider choice, timeout per attempt, retries by `retryClass`,
 * failover) -> record (health, audit, trace, metrics; call-journal.ts: a
 * call that may write is on record before it runs and answered only once
 * its outcome is). Everything that leaves goes through the redactor.
 *
 * A call reads the registry's snapshot once and uses it throughout, so a
 * reload in the middle of a call cannot mix two catalogs. This class wires
 * the parts and keeps the public API; the work is in the modules above.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Tracer } from '@opentelemetry/api';
import type { Tool } from '../model/schema.js';
import { toolKey } from '../model/tool-key.js';
import { errorMessage } from '../model/errors.js';
import type { Registry } from '../registry/registry.js';
import type { Snapshot } from '../registry/snapshot.js';
import type { ApprovalRecord, ApprovalStatus, InterruptedCall, Store } from '../store/types.js';
import { Admission } from './admission.js';
import { ApprovalPolicy, type Decision } from './approval-policy.js';
import { approvalReason, type ApprovalRule } from './approval-rules.js';
import { Approvals, type ApprovalSignals, type ApprovalView, type ReviewedCall } from './approvals.js';
import { ArgumentChecker } from './arguments.js';
import { credentialAvailability } from './availability.js';
import { CallJournal } from './call-journal.js';
import { codeHash } from './code-hash.js';
import { credentialRefusal } from './credentials.js';
import type { Redactor } from './containment/redact.js';
import { HIDDEN_MASK, shownArguments } from './containment/recorded-arguments.js';
import { CallError, redactCallError, tellsOfHealth, type CallErrorCode } from './errors.js';
import { HealthBook } from './health.js';
import { HealthChecks } from './health-checks.js';
import type { Principal } from './identity/principal.js';
import { ProviderSlots, type ProviderResolver } from './provider-slots.js';
import { Router, type RouteLog } from './router.js';
import { checkAgentCall } from './agent-gate.js';
import type { CallContext, CallResult, RuntimeOptions } from './runtime-types.js';
import { manifestRedactor } from './secrets.js';
import { withOAuthTokens } from './oauth/redaction.js';
import type { OAuthVault } from './oauth/vault.js';
import { SerialRuns } from './serial.js';
import { selectionAttributes, selectionDetail, selectionOwner, Selections } from './selections.js';
import type { ProviderEnvironment } from './providers/types.js';
import { CallMetrics, callAttributes, endCallSpan, outcomeLabel, refusedToolLabel, startCallSpan, toolcapTracer } from './telemetry.js';
import { defaultToolDatabases, ToolServices } from './tool-services.js';

export { approvalReason, type ApprovalRule } from './approval-rules.js';
export type { ApprovalView } from './approvals.js';
export type { Decision } from './approval-policy.js';
export type { ProviderResolver } from './provider-slots.js';
export type { CallContext, CallResult, RuntimeOptions } from './runtime-types.js';

/** What a run knows beyond the caller's context: the approval it runs under. */
type RunContext = CallContext & { approvalId?: string };

type OkResult = CallResult & { status: 'ok' };

/**
 * The runtime: calls, approvals and health over a registry.
 * @example
 * const runtime = new Runtime({ registry, store, providers: new ProviderTypes() });
 * const r = await runtime.call('pagerduty.list_incidents', { status: 'open' }, { persona: 'oncall' });
 */
export class Runtime {
  readonly health: HealthBook;
  readonly metrics: CallMetrics;
  /** Search answers kept for the calls that name them (selections.ts). */
  readonly selections: Selections;
  readonly store: Store;
  /** Tools' configurations, SQL databases and result checks (tool-services.ts). */
  readonly services: ToolServices;
  readonly #registry: Registry;
  readonly #rules: readonly ApprovalRule[];
  readonly #tracer: Tracer;
  readonly #clock: () => number;
  readonly #arguments = new ArgumentChecker();
  readonly #serial = new SerialRuns();
  readonly #journal: CallJournal;
  /** When this runtime was made: records of runs begun before it are from an earlier process. */
  readonly #bornAt: number;
  readonly #redactor: Redactor | undefined;
  readonly #redactors = new WeakMap<Snapshot, Redactor>();
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #checks: HealthChecks;
  readonly #slots: ProviderSlots;
  readonly #router: Router;
  readonly #approvals: Approvals;
  readonly #policy: ApprovalPolicy;
  readonly #admission: Admission;
  readonly #oauth: OAuthVault | undefined;
  /** Errors of runs already counted where they ended (so call() does not count them twice). */
  readonly #counted = new WeakSet<object>();
  /** Stops pruning metric series on reloads. */
  readonly #unsubscribe: () => void;

  constructor(options: RuntimeOptions) {
    this.#registry = options.registry;
    this.store = options.store;
    this.#rules = options.rules ?? [];
    this.#clock = options.clock ?? Date.now;
    const random = options.random ?? Math.random;
    this.health = options.health ?? new HealthBook({ random });
    this.#tracer = options.tracer ?? toolcapTracer();
    this.metrics = options.metrics ?? new CallMetrics();
    // series of tools the new snapshot no longer has are dropped; those of live tools keep their counts
    this.#unsubscribe = this.#registry.subscribe((event) => {
      if (event.kind !== 'reloaded') return;
      const snapshot = this.#registry.snapshot();
      this.metrics.retainTools((name) => snapshot.byName.has(name)).catch((error: unknown) => process.emitWarning(`toolcap runtime: metric series were not pruned: ${errorMessage(error)}`));
    });
    this.selections = new Selections({ clock: this.#clock });
    this.#bornAt = this.#clock();
    const environment: ProviderEnvironment = { ...options.environment, env: options.environment?.env ?? process.env, baseDir: options.environment?.baseDir ?? process.cwd() };
    this.#env = environment.env;
    this.health.useAvailability(credentialAvailability(this.#registry, this.#env));
    const databases = defaultToolDatabases(this.store);
    this.services = options.services ?? new ToolServices({ env: this.#env, ...(databases ? { databases } : {}) });
    this.health.annotate((name) => this.#annotation(name));
    this.#redactor = options.redactor;
    this.#oauth = options.oauth;
    const onWarning = options.onWarning ?? ((m) => process.emitWarning(`toolcap runtime: ${m}`));
    const warn = (m: string) => onWarning(this.redactor.redactText(m));
    this.#journal = new CallJournal(this.store, warn, this.#clock);
    // a check's reason is provider text (a module's words, an upstream's error) shown by GET /tools/{name}: redacted like every other sink
    this.#checks = new HealthChecks(this.health, this.#clock, (text) => this.redactor.redactText(text));
    this.#slots = new ProviderSlots(options.providers, environment, this.health, this.#checks);
    this.#router = new Router({
      health: this.health,
      metrics: this.metrics,
      env: environment.env,
      maxAttempts: Math.max(1, options.maxAttempts ?? 3),
      retryBaseMs: options.retryBaseMs ?? 100,
      clock: this.#clock,
      random,
    });
    const catalogPersonas = () => this.#registry.snapshot().personas;
    this.#admission = new Admission({ rateLimit: options.rateLimit, catalogPersonas, rules: this.#rules, personas: options.personas });
    this.#policy = new ApprovalPolicy({
      rules: this.#rules,
      selfApproval: options.selfApproval,
      elicitation: options.elicitation,
      toolOf: (name, persona) => this.#registry.snapshot().callable(name, persona),
    });
    const ttlMs = (options.approvalTtlSec ?? 3600) * 1000;
    const redact = <T>(value: T): T => this.redactor.redact(value);
    this.#approvals = new Approvals({ store: this.store, metrics: this.metrics, ttlMs, clock: this.#clock, warn, policy: this.#policy, redact, shownArguments: (record) => this.#shownArguments(record) });
  }

  /**
   * An approval's arguments as its views show them: masked by the input
   * schema of the tool version it was asked for (its key, in the serving
   * snapshot). A tool no longer served cannot say which are sensitive: every
   * value is hidden then (such an approval is void if approved anyway).
   */
  #shownArguments(record: ApprovalRecord): unknown {
    const tool = this.#registry.snapshot().byKey.get(record.toolKey);
    if (tool) return shownArguments(tool.inputSchema, record.arguments);
    const args = record.arguments;
    return typeof args === 'object' && args !== null && !Array.isArray(args) ? Object.fromEntries(Object.keys(args).map((k) => [k, HIDDEN_MASK])) : HIDDEN_MASK;
  }

  /** The redactor of what leaves the runtime now (the option's, else the serving catalog's default). */
  get redactor(): Redactor {
    return this.#redactorOf(this.#registry.snapshot());
  }

  #redactorOf(snapshot: Snapshot): Redactor {
    if (this.#redactor) return this.#redactor;
    let r = this.#redactors.get(snapshot);
    if (!r) this.#redactors.set(snapshot, (r = manifestRedactor(snapshot.tools, this.#env, this.services.secrets(snapshot.tools))));
    return r;
  }

  /** `work`, with any CallError it throws redacted. */
  async #redacting<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw error instanceof CallError ? redactCallError(error, this.redactor) : error;
    }
  }

  /** Every persona there is: the catalog's, those the approval rules name, and the extra names of the options. Sorted. */
  knownPersonas(): string[] {
    return this.#admission.knownPersonas();
  }

  /**
   * The persona a principal acts as for a request: the one asked for when it
   * is known and granted (matched exactly), its default when none is asked
   * for, undefined for none. Throws CallError FORBIDDEN_PERSONA (403) or
   * UNKNOWN_PERSONA (404) with `extra.allowed`. Without a principal (a
   * trusted caller), the persona asked for.
   * @example runtime.resolvePersona(principal, undefined) // its default persona
   */
  resolvePersona(principal: Principal | undefined, requested: string | null | undefined): string | undefined {
    return this.#admission.resolvePersona(principal, requested);
  }

  /** Whether an MCP elicitation may decide this approval (see approval-policy.ts); the decision is still four-eyes checked. */
  elicitationAllowed(approval: Pick<ApprovalView, 'id' | 'tool' | 'persona' | 'requestedByPrincipal'>): boolean {
    return this.#policy.elicitationAllowed(approval);
  }

  /** The tool this persona may call by this name, or TOOL_NOT_FOUND (hidden and missing look the same). */
  resolve(name: string, persona?: string): Tool {
    return resolveIn(this.#registry.snapshot(), name, persona);
  }

  /** Check arguments against the tool's input schema (compiled once per tool of a snapshot). */
  validate(tool: Tool, args: unknown): Record<string, unknown> {
    return this.#arguments.check(this.#registry.snapshot(), tool, args);
  }

  /**
   * Call a tool. Resolves to the result, or to a pending approval when the
   * call needs one; rejects with a {@link CallError}.
   */
  call(name: string, args: unknown, callerContext: CallContext = {}): Promise<CallResult> {
    return this.#redacting(async () => {
      // every outcome is counted: a run's where it ends (#execute), any other here
      try {
        const context = await this.#admission.admit(callerContext);
        const callId = randomUUID();
        const snapshot = this.#registry.snapshot();
        const tool = resolveIn(snapshot, name, context.persona);
        checkAgentCall(snapshot, tool, context.agent, context.persona);
        const checked = this.#arguments.check(snapshot, tool, args);
        // refused before anything runs or waits for approval: no provider has the credentials it needs
        const refusal = credentialRefusal(tool, this.#slots.of(snapshot, tool), this.#env, callId);
        if (refusal) throw refusal;
        await this.#oauth?.check(tool);
        const reason = approvalReason(tool, context.persona, this.#rules);
        if (reason !== undefined) {
          const bound = await codeHash(tool, this.#slots.of(snapshot, tool));
          const approval = await this.#approvals.request(tool, checked, reason, callId, context, bound);
          this.metrics.calls.inc({ tool: tool.name, outcome: 'pending_approval' });
          return { status: 'pending_approval', callId, tool: tool.name, approval };
        }
        return await this.#run(snapshot, tool, checked, callId, context, false);
      } catch (error) {
        if (!(error instanceof Object && this.#counted.has(error))) this.metrics.calls.inc({ tool: refusedToolLabel(name, (n) => this.#registry.snapshot().byName.has(n)), outcome: outcomeLabel(error) });
        throw error;
      }
    });
  }

  /** Serialise calls of a tool that disallows parallel runs (per tool version, in arrival order), then execute. */
  async #run(snapshot: Snapshot, tool: Tool, args: Record<string, unknown>, callId: string, context: RunContext, gated: boolean): Promise<OkResult> {
    if (tool.execution?.allowParallel !== false) return this.#execute(snapshot, tool, args, callId, context, gated);
    return this.#serial.run(toolKey(tool), () => this.#execute(snapshot, tool, args, callId, context, gated));
  }

  /**
   * Put a call that may write on record, route it, then record its outcome
   * either way: health, metrics, span, store (the caller waits for the
   * record of an approved call and of a call that may write).
   */
  async #execute(snapshot: Snapshot, tool: Tool, args: Record<string, unknown>, callId: string, context: RunContext, gated: boolean): Promise<OkResult> {
    const oauth = await this.#oauth?.accessFor(tool, context.signal);
    const redactor = withOAuthTokens(this.#redactorOf(snapshot), oauth);
    // what the tool was chosen over, when the call names the search answer it came from
    const { selection } = context;
    const selected = selection === undefined ? undefined : this.selections.resolve(selection, selectionOwner(context.principal), tool.name);
    const party = {
      persona: context.persona ?? null,
      actor: context.caller ?? null,
      job: context.job ?? null,
      approvalId: context.approvalId,
      ...(selection !== undefined ? { selection: selectionDetail(selection, selected) } : {}),
    };
    await this.#journal.started(tool, callId, args, party, redactor);
    const started = this.#clock();
    const attributes = { ...callAttributes(tool, callId, args, context.persona, gated, redactor), ...(selection !== undefined ? redactor.redact(selectionAttributes(selection, selected)) : {}) };
    const span = startCallSpan(this.#tracer, tool, attributes);
    const log: RouteLog = { attempts: [], skipped: [], count: 0 };
    const finish = async (ok: boolean, provider: string | undefined, code?: CallErrorCode, message?: string): Promise<number> => {
      const durationMs = this.#clock() - started;
      // a call the provider refused as the caller's error, or one the caller gave up, says nothing about the tool's health
      if (tellsOfHealth(code)) this.health.record(tool.name, { ok, durationMs, at: this.#clock(), provider: provider ?? null, errorCode: code ?? null }, context.job, callId);
      this.metrics.calls.inc({ tool: tool.name, outcome: ok ? 'ok' : (code ?? 'error') });
      this.metrics.duration.observe({ tool: tool.name }, durationMs / 1000);
      endCallSpan(span, { ok, provider, skipped: log.skipped, attempts: log.count, ...(code !== undefined ? { errorCode: code } : {}), ...(message !== undefined ? { message } : {}) }, redactor);
      const end = { ok, provider, attempts: log.attempts, skipped: log.skipped, startedAt: started, durationMs, code, message };
      await this.#journal.finished(tool, callId, party, end, redactor, { wait: gated });
      return durationMs;
    };
    try {
      const extras = await this.services.forCall(tool, callId);
      const { provider, result } = await this.#router.route(
        { tool, args, slots: this.#slots.of(snapshot, tool), callId, persona: context.persona, idempotencyKey: context.idempotencyKey, signal: context.signal, extras, oauth },
        log,
      );
      this.services.checkResult(tool, result, callId);
      const durationMs = await finish(true, provider);
      return { status: 'ok', callId, tool: tool.name, provider, attempts: log.count, durationMs, result, skipped: log.skipped };
    } catch (error) {
      const e = redactCallError(error instanceof CallError ? error : new CallError('PROVIDER_ERROR', errorMessage(error), { callId }), redactor);
      await finish(false, log.attempts.at(-1)?.provider, e.code, e.message);
      this.#counted.add(e);
      throw e;
    }
  }

  /** Wait until every finished call's record and audit line is in the store. */
  flush(): Promise<void> {
    return this.#journal.flush();
  }

  /**
   * Call once at start, before serving: what an earlier process left
   * unfinished is marked `interrupted` and never run again. Approvals left
   * `approved` (their run had begun) become `interrupted` with an
   * `approval.interrupted` line; calls whose `call.started` line has no
   * outcome get a `call.interrupted` line. Only records begun before this
   * runtime was made, less `graceMs`: with several instances on one store,
   * a grace longer than the longest call keeps a live instance's runs out.
   * @example const { approvals, calls } = await runtime.recoverInterrupted();
   */
  recoverInterrupted(options: { graceMs?: number } = {}): Promise<{ approvals: ApprovalView[]; calls: InterruptedCall[] }> {
    return this.#redacting(async () => {
      const before = this.#bornAt - (options.graceMs ?? 0);
      const approvals = await this.#approvals.interrupt(before);
      const calls = await this.#journal.interrupt(before);
      return { approvals, calls };
    });
  }

  /** Stop health checks, write queued call records, release provider resources. The store is the caller's to close. */
  async close(): Promise<void> {
    this.#unsubscribe();
    this.#checks.stop();
    await this.#journal.flush();
    await this.#checks.close();
    await this.#slots.close();
    await this.services.close();
  }

  /** Result drift and an unavailable reason, shown with a tool's health. */
  #annotation(name: string): Record<string, unknown> | undefined {
    // before the first build there is no catalog to ask (only observations)
    const tool = this.#registry.status().version === 0 ? undefined : this.#registry.snapshot().byName.get(name)?.[0];
    const unavailable = tool === undefined ? undefined : this.services.unavailable(tool);
    const drift = this.services.drift(name);
    if (unavailable === undefined && drift === undefined) return undefined;
    return { ...(unavailable !== undefined ? { status: 'unavailable', reason: unavailable, unavailable } : {}), ...(drift !== undefined ? { resultDrift: drift } : {}) };
  }

  /** Seed observed health from calls the store remembers (after a restart, or from other instances). */
  async loadHealth(sinceMs = 24 * 3600 * 1000): Promise<number> {
    const since = new Date(this.#clock() - sinceMs).toISOString();
    const calls = await this.store.listCalls({ since, limit: 10_000 });
    for (const c of calls.reverse()) {
      if (!tellsOfHealth(c.errorCode)) continue;
      // when it ended, as a live call is recorded
      const at = Date.parse(c.startedAt) + c.durationMs;
      this.health.record(c.tool, { ok: c.outcome === 'ok', durationMs: c.durationMs, at, provider: c.provider, errorCode: c.errorCode }, c.job);
    }
    return calls.length;
  }

  // --- approvals (approvals.ts) ---------------------------------------------

  /** Approvals, newest first; `requestedBy` keeps those one principal asked for. */
  listApprovals(query: { status?: ApprovalStatus; tool?: string; limit?: number; requestedBy?: string } = {}): Promise<ApprovalView[]> {
    const { requestedBy, ...rest } = query;
    return this.#redacting(() => this.#approvals.list({ ...rest, ...(requestedBy !== undefined ? { requestedByPrincipal: requestedBy } : {}) }));
  }

  /** One approval; its errors (a store that cannot be read says why, a connection string included) are redacted as approve's are. */
  getApproval(id: string): Promise<ApprovalView> {
    return this.#redacting(() => this.#approvals.get(id));
  }

  /**
   * Approve and run exactly the reviewed call. Void when the tool's manifest
   * changed since the request (or the tool is gone for that persona);
   * expired after `approvalTtlSec`. With a principal: FORBIDDEN unless its
   * grants cover the approval, SELF_APPROVAL when it asked itself (unless
   * self-approval is allowed for the rule or the runtime); the channel
   * `elicitation` only where {@link elicitationAllowed}.
   */
  approve(id: string, decision: Decision = {}): Promise<{ approval: ApprovalView; call?: CallResult; error?: CallError }> {
    return this.#redacting(async () => {
      const out = await this.#approvals.approve(id, decision, this.#reviewedCall());
      return out.error ? { ...out, error: redactCallError(out.error, this.redactor) } : out;
    });
  }

  /** Deny a pending approval; the same checks as {@link approve}, except that a requester may withdraw its own request. */
  deny(id: string, decision: Decision = {}): Promise<ApprovalView> {
    return this.#redacting(() => this.#approvals.deny(id, decision));
  }

  /**
   * Resolves with the approval once it is decided and, if approved, run (or
   * failed), or with it as it stands when `timeoutMs` passes or `signal`
   * aborts. Decisions in this process wake it at once; the store is read
   * every 250 ms for decisions made by another instance (and at once on its
   * notice, with a PostgreSQL store: runtime/cluster).
   * @example const settled = await runtime.waitForApproval(id, 30_000, request.signal);
   */
  waitForApproval(id: string, timeoutMs: number, signal?: AbortSignal): Promise<ApprovalView> {
    return this.#redacting(() => this.#approvals.wait(id, timeoutMs, signal));
  }

  /** Approvals settled here, and the nudge for approvals settled by another instance (runtime/cluster). */
  get approvalSignals(): ApprovalSignals {
    return this.#approvals.signals;
  }

  /** An approved call's steps on one snapshot: the one serving when the approval resolves its tool. */
  #reviewedCall(): ReviewedCall<OkResult> {
    let snapshot: Snapshot | undefined;
    const pinned = () => (snapshot ??= this.#registry.snapshot());
    return {
      resolve: (name, persona) => resolveIn(pinned(), name, persona),
      validate: (tool, args) => this.#arguments.check(pinned(), tool, args),
      codeHash: (tool) => codeHash(tool, this.#slots.of(pinned(), tool)),
      run: (tool, args, callId, context) => this.#run(pinned(), tool, args, callId, context, true),
    };
  }
}

/**
 * The tool a caller may call in this snapshot; TOOL_DISABLED for one the
 * caller can see (as `GET /tools/{name}` shows it) that is disabled, else
 * TOOL_NOT_FOUND (a tool outside the persona and a missing one look the same).
 */
function resolveIn(snapshot: Snapshot, name: string, persona: string | undefined): Tool {
  const tool = snapshot.callable(name, persona);
  // the version this caller sees: its persona's, else the shared one (never another persona's: that would reveal it)
  const seen = persona === undefined ? snapshot.byName.get(name)?.find((t) => (t.scope?.personas?.length ?? 0) === 0) : snapshot.tool(name, persona);
  if (!tool && seen?.enabled === false) throw new CallError('TOOL_DISABLED', `Tool "${name}" is disabled (enabled: false): it is listed for review but cannot be called.`);
  if (!tool) throw new CallError('TOOL_NOT_FOUND', persona === undefined ? `No tool named "${name}".` : `No tool named "${name}" for persona "${persona}".`);
  return tool;
}
