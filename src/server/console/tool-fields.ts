/**
 * A tool's fields as the tool page shows them: the value, whether it was
 * declared or derived and why, and which layer and line set it.
 * @module
 */
import type { Tool } from '../../model/schema.js';
import type { PositionedOrigin } from '../../registry/catalog.js';
import type { Snapshot } from '../../registry/snapshot.js';

/** The fields listed first, in this order; any other derived field follows. */
const FIELDS = [
  'effects.mode', 'effects.sideEffects', 'effects.reversible', 'effects.rollbackHint', 'effects.risk', 'effects.deterministic',
  'approval.required', 'approval.consent', 'auth.required', 'auth.type', 'auth.scopes', 'auth.envs',
  'cost.lane', 'cost.estimatedDollars', 'latency.p50Ms', 'latency.p95Ms',
  'execution.timeoutSec', 'execution.allowParallel', 'execution.idempotent', 'execution.retryClass', 'execution.idempotencyKey',
  'version', 'enabled', 'tags', 'capabilities', 'permissions', 'alternatives', 'surface.domains', 'surface.operations', 'observability.traceAttrs',
] as const;

/** Why a field nobody declared has the value it has (model/derive.ts's rules, in words). */
export const ASSUMED_WHY: Readonly<Record<string, string>> = {
  'effects.mode': 'No layer declared a mode: read only when the declared side effects are read-only, otherwise write (the most restrictive reading).',
  'effects.sideEffects': 'No layer declared side effects: read_external_service for a read, otherwise write.',
  'effects.reversible': 'No layer said whether it can be undone: full for a read, none otherwise.',
  'effects.risk': 'No risk declared: the risk its side-effect category implies.',
  'effects.deterministic': 'Not declared: assumed not deterministic.',
  'approval.required': 'Not declared: a tool that may write needs approval.',
  'execution.timeoutSec': 'Not declared: the default timeout, 30 s.',
  'execution.allowParallel': 'Not declared: calls run one at a time.',
  'execution.idempotent': 'Not declared: only reads are assumed idempotent.',
  'execution.retryClass': 'Not declared: safe when idempotent, guarded when calls carry an idempotency key, otherwise never.',
};

/** One row of the declared-versus-derived table. */
export interface FieldRow {
  path: string;
  value: unknown;
  status: 'declared' | 'assumed' | 'translated';
  why?: string;
  /** The layer that set it and where: `file:line:column`. */
  place?: string;
  layer?: { index: number; source: string };
}

/** The value at a dot path. */
export function valueAt(tool: Tool, path: string): unknown {
  let v: unknown = tool;
  for (const part of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  return v;
}

/** Every shown field of a tool (fields with no value left out), with where it came from. */
export function fieldRows(snap: Snapshot, key: string, tool: Tool, origins: readonly PositionedOrigin[]): FieldRow[] {
  const basis = snap.basis(key);
  const derived = new Set(tool.derived ?? []);
  const assumed = new Set(basis?.assumed ?? []);
  const paths = [...FIELDS, ...[...derived].filter((p) => !(FIELDS as readonly string[]).includes(p))];
  const rows: FieldRow[] = [];
  for (const path of paths) {
    const value = valueAt(tool, path);
    if (value === undefined) continue;
    const index = basis?.fieldOrigins.get(path) ?? basis?.fieldOrigins.get(path.split('.')[0] ?? path) ?? 0;
    const origin = origins[index] ?? origins[0];
    const layer = origin ? { index: origin.layer, source: origin.source } : undefined;
    if (derived.has(path) && assumed.has(path)) {
      rows.push({ path, value, status: 'assumed', why: ASSUMED_WHY[path] ?? 'No layer declared it: toolcap took the most restrictive consistent value.' });
      continue;
    }
    const at = basis?.locate(path);
    const place = at?.file !== undefined ? `${at.file}:${at.line ?? '?'}:${at.column ?? '?'}` : undefined;
    const row: FieldRow = { path, value, status: derived.has(path) ? 'translated' : 'declared', ...(place ? { place } : {}), ...(layer ? { layer } : {}) };
    if (derived.has(path)) row.why = `The ${origin?.dialect ?? 'source'} manifest said it in its own words; toolcap translated it (not a literal declaration).`;
    rows.push(row);
  }
  return rows;
}

/** Where observations contradict declarations: a declared latency the observed one exceeds by half again. */
export function observedFlags(tool: Tool, observed: { p50Ms?: number; p95Ms?: number; calls?: number }): string[] {
  const flags: string[] = [];
  for (const q of ['p50Ms', 'p95Ms'] as const) {
    const declared = tool.latency?.[q];
    const seen = observed[q];
    if (declared !== undefined && seen !== undefined && seen > declared * 1.5) flags.push(`Observed ${q.slice(0, 3)} ${Math.round(seen)} ms exceeds the declared ${declared} ms: the manifest looks stale.`);
  }
  return flags;
}
