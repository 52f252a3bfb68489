/**
 * The store: where approvals, the audit log and call outcomes are kept, so
 * they survive a restart and can be shared by several toolcap instances.
 * One interface, two back ends: SQLite (better-sqlite3 or `node:sqlite`, WAL; the embedded
 * default, a file in `.toolcap/`) and PostgreSQL (`pg`, selected by a URL).
 * Both pass the same contract suite (`test/store/contract.ts`).
 *
 * Rules every back end keeps:
 * - Versioned migrations, applied in order inside a transaction at open; a
 *   store written by a newer toolcap (unknown higher version) is refused.
 * - The audit log is append-only: no method updates or deletes it, and the
 *   database refuses UPDATE and DELETE on it (a trigger).
 * - A method resolves only after its write is committed (durable: SQLite
 *   `synchronous=FULL` in WAL mode): a record acknowledged is a record kept,
 *   even if the process is killed right after.
 * - Approval decisions are compare-and-set on the status, so two instances
 *   deciding the same approval cannot both win.
 * - JSON values (arguments, results, details) round-trip exactly
 *   (`jsonEqual`); times are ISO 8601 strings in UTC.
 * @module
 */
import type { SqliteDriverName } from './sqlite-driver-types.js';

/**
 * Where an approval stands. `interrupted`: it was approved and its run had
 * begun, but the process ended before the outcome was recorded; found at the
 * next start (`Runtime.recoverInterrupted`) and never re-run automatically.
 */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'void' | 'executed' | 'failed' | 'interrupted';

/** Every {@link ApprovalStatus}, in lifecycle order: the one list for filters and schemas. */
export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired', 'void', 'executed', 'failed', 'interrupted'] as const satisfies readonly ApprovalStatus[];

/** A request for human approval of one exact call. */
export interface ApprovalRecord {
  /** Unguessable id (e.g. `apr_` + 128 random bits, base32/hex). */
  id: string;
  /** Tool name, and the merge key of the exact version called (`name` or `name@persona,…`). */
  tool: string;
  toolKey: string;
  /** The persona the call was made as; null for none. */
  persona: string | null;
  /** The call's arguments, exactly as reviewed. */
  arguments: unknown;
  /** `sha256:` of the canonical JSON of `arguments`. */
  argumentsHash: string;
  /** `toolHash` of the manifest when the approval was asked for: a changed manifest voids the approval. */
  manifestHash: string;
  /**
   * `sha256:` of the code the call would run when it was asked for (every
   * provider's `codeIdentity()`, in priority order): changed code voids the
   * approval. Absent on records written before it was kept.
   */
  codeHash?: string;
  /** Who asked (a user or agent id); null when unknown. */
  requestedBy: string | null;
  /** Why approval is needed (manifest or a policy rule), for the reviewer. */
  reason: string;
  createdAt: string;
  expiresAt: string;
  status: ApprovalStatus;
  decidedBy: string | null;
  decidedAt: string | null;
  /** The reviewer's note, or why the approval became void/expired. */
  note: string | null;
  /** The call's outcome once run (`executed`/`failed`), else null. */
  result: unknown;
  /** The authenticated principal that asked; absent when none was (an unauthenticated or older record). */
  requestedByPrincipal?: string;
  /** The authenticated principal that decided; absent when none did. */
  decidedByPrincipal?: string;
  /** Where the decision was made; absent while undecided or when unknown. */
  decidedVia?: DecisionChannel;
  /** What the approved call gave the agent, once it ran; absent until then (and for records written before it was kept). */
  outcome?: ApprovalOutcome;
}

/**
 * The outcome of an approved call, kept with its approval so the agent that
 * asked can read it (`GET /approvals/{id}`). A result whose JSON is larger
 * than {@link OUTCOME_RESULT_LIMIT} bytes is kept as `{ truncated: true, bytes }`.
 */
export type ApprovalOutcome =
  | { status: 'ok'; result: unknown; provider: string; attempts: number; durationMs: number }
  | { status: 'error'; code: string; message: string };

/** The largest result (UTF-8 bytes of its JSON) kept whole in an {@link ApprovalOutcome}: 1 MiB. */
export const OUTCOME_RESULT_LIMIT = 1024 * 1024;

/** Where an approval was decided: the HTTP API, the command line, or an MCP elicitation answered in the client. */
export type DecisionChannel = 'http' | 'cli' | 'elicitation';

/** Every {@link DecisionChannel}, in a fixed order (the database CHECK uses it). */
export const DECISION_CHANNELS = ['http', 'cli', 'elicitation'] as const satisfies readonly DecisionChannel[];

/** Fields a decision changes. */
export interface ApprovalUpdate {
  status: ApprovalStatus;
  decidedBy?: string | null;
  decidedAt?: string | null;
  note?: string | null;
  result?: unknown;
  /** The authenticated principal deciding (`null` clears it). */
  decidedByPrincipal?: string | null;
  decidedVia?: DecisionChannel | null;
  /** The approved call's outcome (`null` clears it). */
  outcome?: ApprovalOutcome | null;
}

export interface ApprovalQuery {
  status?: ApprovalStatus;
  tool?: string;
  /** Only approvals asked for by this authenticated principal. */
  requestedByPrincipal?: string;
  /** Newest first. @default 100 */
  limit?: number;
}

/** One line of the audit log. `seq` is assigned by the store, strictly increasing. */
export interface AuditRecord {
  seq: number;
  at: string;
  /** e.g. `call.ok`, `call.error`, `call.pending_approval`, `approval.approved`, `approval.denied`, `approval.void`. */
  kind: string;
  tool: string | null;
  callId: string | null;
  persona: string | null;
  /** Who did it (caller or reviewer); null when unknown. */
  actor: string | null;
  /** Free JSON detail (provider, attempts, error code, approval id...). */
  detail: unknown;
}

export type NewAuditRecord = Omit<AuditRecord, 'seq'>;

export interface AuditQuery {
  /** Only records with a higher seq (for paging and tailing). */
  afterSeq?: number;
  tool?: string;
  callId?: string;
  /** Oldest first. @default 100 */
  limit?: number;
}

export type CallOutcome = 'ok' | 'error' | 'timeout' | 'rejected';

/** One call attempt's outcome, for observed health (success rate, latency). */
export interface CallRecord {
  callId: string;
  tool: string;
  /** The provider that ran (or failed); null when none was tried. */
  provider: string | null;
  job: string | null;
  persona: string | null;
  startedAt: string;
  durationMs: number;
  outcome: CallOutcome;
  /** A toolcap error code (`TIMEOUT`, `PROVIDER_ERROR`, ...) or null. */
  errorCode: string | null;
}

/** One finished call: its record and its audit line, written together. */
export interface CallOutcomeRecord {
  call: CallRecord;
  audit: NewAuditRecord;
}

/** A call whose provider ran but whose outcome was never recorded (see {@link Store.interruptCalls}). */
export interface InterruptedCall {
  callId: string;
  tool: string;
  persona: string | null;
  /** When its `call.started` record was written. */
  startedAt: string;
  /** The seq of its `call.started` audit record. */
  startedSeq: number;
}

export interface CallQuery {
  /** Only calls started at or after this time. */
  since?: string;
  tool?: string;
  /** Newest first. @default 1000 */
  limit?: number;
}

/**
 * An API key as stored: who it speaks for and what it grants, and a slow hash
 * of its secret (never the secret). Roles are kept as text; the runtime
 * ignores roles it does not know (fail closed).
 */
export interface KeyRecord {
  /** The public part of the key (`tcap_<id>_<secret>`), unique. */
  id: string;
  /** The principal id the key authenticates as. */
  principal: string;
  roles: string[];
  /** Granted personas; `*` grants every persona. */
  personas: string[];
  defaultPersona: string | null;
  /** What an approver may decide; null when it decides nothing. */
  approves: { personas: string[]; tools: string[] } | null;
  /** The secret's hash, its salt and the hash parameters, as `api-keys.ts` writes them. */
  hash: string;
  salt: string;
  params: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** After this time the key is refused; null: it does not expire. */
  expiresAt: string | null;
  /** When it was revoked; null while it is valid. */
  revokedAt: string | null;
}

export interface KeyQuery {
  principal?: string;
  /** Include revoked keys. @default false */
  includeRevoked?: boolean;
  /** Newest first. @default 100 */
  limit?: number;
}

/**
 * API keys, kept by both back ends. Apart from {@link Store} so that code
 * wrapping a Store need not know about keys; `openStore` returns both.
 */
export interface KeyStore {
  /** Rejects when a key with the same id exists. */
  createKey(record: KeyRecord): Promise<void>;
  getKey(id: string): Promise<KeyRecord | undefined>;
  listKeys(query?: KeyQuery): Promise<KeyRecord[]>;
  /** Revoke a key at `at`; resolves to the revoked record, or undefined when there is no such key or it was already revoked. */
  revokeKey(id: string, at: string): Promise<KeyRecord | undefined>;
  /** Note that the key was used at `at` (kept only if later than the last use noted). */
  touchKey(id: string, at: string): Promise<void>;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** Where it is: the SQLite file, or the PostgreSQL URL without its password. */
  readonly location: string;
  /** The SQLite driver an SQLite store runs on (sqlite-driver.ts); tools' own databases beside it use the same. */
  readonly sqliteDriver?: SqliteDriverName;
  createApproval(record: ApprovalRecord): Promise<void>;
  getApproval(id: string): Promise<ApprovalRecord | undefined>;
  listApprovals(query?: ApprovalQuery): Promise<ApprovalRecord[]>;
  /**
   * Change an approval only if its status is still `from` (compare-and-set).
   * Resolves to the updated record, or undefined when the status was not
   * `from` (someone else decided first) or there is no such approval.
   */
  updateApproval(id: string, from: ApprovalStatus, update: ApprovalUpdate): Promise<ApprovalRecord | undefined>;
  appendAudit(record: NewAuditRecord): Promise<AuditRecord>;
  listAudit(query?: AuditQuery): Promise<AuditRecord[]>;
  recordCall(record: CallRecord): Promise<void>;
  /**
   * Record several call outcomes, each with its audit line, in one
   * transaction (all or nothing): the runtime's group commit. Optional; a
   * store without it gets the records one by one.
   */
  recordOutcomes?(outcomes: readonly CallOutcomeRecord[]): Promise<void>;
  /**
   * Record that calls are about to run (their `call.started` audit lines,
   * each with a call id), in one transaction, and note them in flight until
   * `recordOutcomes` records their outcomes. Optional; a store without it
   * gets the audit lines one by one and cannot tell interrupted calls.
   */
  recordStarts?(records: readonly NewAuditRecord[]): Promise<void>;
  /**
   * Calls noted in flight before `before` and never finished: each gets a
   * `call.interrupted` audit line at `at` and leaves the in-flight list, in
   * one transaction. Resolves to those calls. Optional (see recordStarts).
   */
  interruptCalls?(options: { at: string; before: string }): Promise<InterruptedCall[]>;
  listCalls(query?: CallQuery): Promise<CallRecord[]>;
  /** Resolves when the store answers; rejects with StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The store cannot be reached or written (the database is down, the disk is full). Callers fail closed. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError' as const;
  readonly code = 'STORE_UNAVAILABLE' as const;
}

/** The database was written by a newer toolcap (a migration version this one does not know). */
export class StoreVersionError extends Error {
  override readonly name = 'StoreVersionError' as const;
  readonly code = 'STORE_VERSION' as const;
}
