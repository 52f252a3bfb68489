/**
 * Records and table rows: the column values of each record, in the same
 * order for both back ends, and the records read back from rows.
 * @module
 */
import type { ApprovalOutcome, ApprovalRecord, ApprovalStatus, AuditRecord, CallOutcome, CallRecord, DecisionChannel, KeyRecord } from './types.js';

/** JSON text of a value; `undefined` is stored as `null`. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value === undefined ? null : value) ?? 'null';
}

/** The value of JSON text read back; JSON.parse keeps `__proto__` as an own data key. */
export function fromJsonText(text: unknown): unknown {
  if (typeof text !== 'string') throw new TypeError(`a JSON column held ${typeof text}, not text`);
  return JSON.parse(text) as unknown;
}

/** Column names of `approvals`, in insert order. */
export const APPROVAL_COLUMNS = [
  'id', 'tool', 'tool_key', 'persona', 'arguments', 'arguments_hash', 'manifest_hash', 'requested_by', 'reason',
  'created_at', 'expires_at', 'status', 'decided_by', 'decided_at', 'note', 'result',
  'requested_by_principal', 'decided_by_principal', 'decided_via', 'outcome', 'code_hash',
] as const;

export function approvalValues(r: ApprovalRecord): unknown[] {
  return [
    r.id, r.tool, r.toolKey, r.persona, toJsonText(r.arguments), r.argumentsHash, r.manifestHash, r.requestedBy, r.reason,
    r.createdAt, r.expiresAt, r.status, r.decidedBy, r.decidedAt, r.note, toJsonText(r.result),
    r.requestedByPrincipal ?? null, r.decidedByPrincipal ?? null, r.decidedVia ?? null, outcomeText(r.outcome), r.codeHash ?? null,
  ];
}

type Row = Record<string, unknown>;

const str = (v: unknown): string => String(v);
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** An outcome as its column holds it: JSON text, or NULL while there is none. */
const outcomeText = (outcome: ApprovalOutcome | null | undefined): string | null => (outcome === undefined || outcome === null ? null : toJsonText(outcome));

/** The identity fields, the outcome and the code hash of an approval are left out while null, so records written before them read back unchanged. */
export function rowToApproval(row: Row): ApprovalRecord {
  const outcome = row.outcome === null || row.outcome === undefined ? null : (fromJsonText(row.outcome) as ApprovalOutcome);
  const requestedByPrincipal = strOrNull(row.requested_by_principal);
  const decidedByPrincipal = strOrNull(row.decided_by_principal);
  const decidedVia = strOrNull(row.decided_via) as DecisionChannel | null;
  const codeHash = strOrNull(row.code_hash);
  return {
    id: str(row.id),
    tool: str(row.tool),
    toolKey: str(row.tool_key),
    persona: strOrNull(row.persona),
    arguments: fromJsonText(row.arguments),
    argumentsHash: str(row.arguments_hash),
    manifestHash: str(row.manifest_hash),
    ...(codeHash !== null ? { codeHash } : {}),
    requestedBy: strOrNull(row.requested_by),
    reason: str(row.reason),
    createdAt: str(row.created_at),
    expiresAt: str(row.expires_at),
    status: str(row.status) as ApprovalStatus,
    decidedBy: strOrNull(row.decided_by),
    decidedAt: strOrNull(row.decided_at),
    note: strOrNull(row.note),
    result: fromJsonText(row.result),
    ...(requestedByPrincipal !== null ? { requestedByPrincipal } : {}),
    ...(decidedByPrincipal !== null ? { decidedByPrincipal } : {}),
    ...(decidedVia !== null ? { decidedVia } : {}),
    ...(outcome !== null ? { outcome } : {}),
  };
}

/** Column names of `audit` a caller supplies (seq is assigned). */
export const AUDIT_COLUMNS = ['at', 'kind', 'tool', 'call_id', 'persona', 'actor', 'detail'] as const;

export function auditValues(r: Omit<AuditRecord, 'seq'>): unknown[] {
  return [r.at, r.kind, r.tool, r.callId, r.persona, r.actor, toJsonText(r.detail)];
}

export function rowToAudit(row: Row): AuditRecord {
  return {
    seq: Number(row.seq),
    at: str(row.at),
    kind: str(row.kind),
    tool: strOrNull(row.tool),
    callId: strOrNull(row.call_id),
    persona: strOrNull(row.persona),
    actor: strOrNull(row.actor),
    detail: fromJsonText(row.detail),
  };
}

export const CALL_COLUMNS = ['call_id', 'tool', 'provider', 'job', 'persona', 'started_at', 'duration_ms', 'outcome', 'error_code'] as const;

export function callValues(r: CallRecord): unknown[] {
  return [r.callId, r.tool, r.provider, r.job, r.persona, r.startedAt, r.durationMs, r.outcome, r.errorCode];
}

export function rowToCall(row: Row): CallRecord {
  return {
    callId: str(row.call_id),
    tool: str(row.tool),
    provider: strOrNull(row.provider),
    job: strOrNull(row.job),
    persona: strOrNull(row.persona),
    startedAt: str(row.started_at),
    durationMs: Number(row.duration_ms),
    outcome: str(row.outcome) as CallOutcome,
    errorCode: strOrNull(row.error_code),
  };
}

/** A query's `limit`: the default when absent or not a number, else a whole number from 0 to 1,000,000. */
export function queryLimit(limit: number | undefined, fallback: number): number {
  if (limit === undefined || Number.isNaN(limit)) return fallback;
  return Math.max(0, Math.min(1_000_000, Math.trunc(limit)));
}

/**
 * The set part of a compare-and-set update, as flags and values: each field is
 * changed only when the update names it (`undefined` leaves it as it is).
 */
export function updateParams(update: {
  decidedBy?: string | null; decidedAt?: string | null; note?: string | null; result?: unknown;
  decidedByPrincipal?: string | null; decidedVia?: DecisionChannel | null; outcome?: ApprovalOutcome | null;
}): {
  setDecidedBy: number; decidedBy: string | null;
  setDecidedAt: number; decidedAt: string | null;
  setNote: number; note: string | null;
  setResult: number; result: string;
  setDecidedByPrincipal: number; decidedByPrincipal: string | null;
  setDecidedVia: number; decidedVia: string | null;
  setOutcome: number; outcome: string | null;
} {
  return {
    setDecidedBy: update.decidedBy === undefined ? 0 : 1,
    decidedBy: update.decidedBy ?? null,
    setDecidedAt: update.decidedAt === undefined ? 0 : 1,
    decidedAt: update.decidedAt ?? null,
    setNote: update.note === undefined ? 0 : 1,
    note: update.note ?? null,
    setResult: update.result === undefined ? 0 : 1,
    result: toJsonText(update.result),
    setDecidedByPrincipal: update.decidedByPrincipal === undefined ? 0 : 1,
    decidedByPrincipal: update.decidedByPrincipal ?? null,
    setDecidedVia: update.decidedVia === undefined ? 0 : 1,
    decidedVia: update.decidedVia ?? null,
    setOutcome: update.outcome === undefined ? 0 : 1,
    outcome: outcomeText(update.outcome),
  };
}

/** Column names of `keys`, in insert order. */
export const KEY_COLUMNS = [
  'id', 'principal', 'roles', 'personas', 'default_persona', 'approves', 'hash', 'salt', 'params',
  'created_at', 'last_used_at', 'expires_at', 'revoked_at',
] as const;

export function keyValues(k: KeyRecord): unknown[] {
  return [
    k.id, k.principal, toJsonText(k.roles), toJsonText(k.personas), k.defaultPersona, toJsonText(k.approves), k.hash, k.salt, k.params,
    k.createdAt, k.lastUsedAt, k.expiresAt, k.revokedAt,
  ];
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

export function rowToKey(row: Row): KeyRecord {
  const approves = fromJsonText(row.approves) as { personas?: unknown; tools?: unknown } | null;
  return {
    id: str(row.id),
    principal: str(row.principal),
    roles: strings(fromJsonText(row.roles)),
    personas: strings(fromJsonText(row.personas)),
    defaultPersona: strOrNull(row.default_persona),
    approves: approves === null ? null : { personas: strings(approves.personas), tools: strings(approves.tools) },
    hash: str(row.hash),
    salt: str(row.salt),
    params: str(row.params),
    createdAt: str(row.created_at),
    lastUsedAt: strOrNull(row.last_used_at),
    expiresAt: strOrNull(row.expires_at),
    revokedAt: strOrNull(row.revoked_at),
  };
}
