/**
 * Probe adapters: how a task-source tool's tasks are read. A tool is a task
 * source (Xena's rule) when it is enabled, has capability `tasks.probe` and
 * task role `source`; an adapter turns what the tool answers into task
 * observations. Adapters are registered by name, like provider types, and
 * a tool finds its adapter by its id or its metadata (adapters.ts).
 * @module
 */
import type { Tool } from '../../model/schema.js';
import type { RejectedObservation, TimedObservation } from './observations.js';

/** One run of the tool through the runtime, as an adapter sees it. */
export interface ProbeCall {
  callId: string;
  /** The provider entry that answered. */
  provider: string;
  /** That entry's provider type (`mcp`, `http`, `command`, `probe-file`, ...), when known. */
  providerType?: string;
  result: unknown;
}

/** What an adapter gets for one probe. */
export interface ProbeContext {
  /** The task-source tool, as the caller's persona sees it. */
  readonly tool: Tool;
  /**
   * Run the tool through the runtime: admission, persona, argument check,
   * approval, providers, the tool's timeout, retries, health and audit. A
   * probe never waits for approval: a call that needs one rejects.
   */
  call(args?: Record<string, unknown>): Promise<ProbeCall>;
  /** Aborted when the probe's time is up or the caller went away. */
  readonly signal: AbortSignal;
}

/**
 * A probe adapter: resolves to the tool's task items, which the snapshot
 * checks as observations (`{ taskId, title, state, updatedAt, url?,
 * assignee? }`; bad ones are reported, not passed on). An adapter should
 * reach its source through `context.call`, so the probe is timed, audited
 * and counted in the tool's health like any call.
 * @example
 * const linear: ProbeAdapter = { name: 'linearAssigned', async probe(ctx) { const r = await ctx.call({}); return toObservations(r.result); } };
 */
export interface ProbeAdapter {
  readonly name: string;
  probe(context: ProbeContext): Promise<readonly unknown[]>;
}

/** A source's outcome: `ok` (fresh observations), `stale` (its newest observation is past the SLA), `error`, `unsupported` (no adapter). */
export const SOURCE_STATUSES = ['ok', 'stale', 'error', 'unsupported'] as const;
export type SourceStatus = (typeof SOURCE_STATUSES)[number];

/** One task source in a snapshot. */
export interface SourceReport {
  /** The tool's name (its Xena id lower-cased). */
  tool: string;
  /** The tool's id as its manifest writes it, when that differs. */
  id?: string;
  title?: string;
  status: SourceStatus;
  /** The adapter that ran (absent: unsupported). */
  adapter?: string;
  /** Why `error` or `unsupported` (redacted). */
  reason?: string;
  /** The runtime's error code, for `error` from a call. */
  code?: string;
  freshnessSlaSec?: number;
  /** The newest observation's `updatedAt`. */
  newestAt?: string;
  observations?: TimedObservation[];
  rejected?: RejectedObservation[];
  /** Observations past the limit (MAX_OBSERVATIONS), left out. */
  truncated?: number;
  /** The calls the adapter made through the runtime (see /audit). */
  callIds?: string[];
  durationMs?: number;
}

/** `GET /tasks/snapshot` and `toolcap tasks snapshot`. */
export interface TaskSnapshot {
  generatedAt: string;
  /** The persona the sources were probed as (absent: shared tools only). */
  persona?: string;
  counts: Record<SourceStatus, number>;
  sources: SourceReport[];
}
