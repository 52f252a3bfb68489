/**
 * The task snapshot: every task-source tool a persona may call is probed by
 * its adapter, concurrently, each within the tool's timeout
 * (`execution.timeoutSec`) and through the runtime (so each call is
 * admitted, routed, timed, counted in health and audited like any call),
 * and reported `ok`, `stale`, `error` or `unsupported`.
 *
 * Freshness: an observation is stale when it is older than the tool's
 * `surface.freshnessSlaSec` (now − updatedAt > SLA). A source is `stale`
 * when it returned observations and its newest one is stale (so all of them
 * are); a source with no observations is `ok` (nothing pending); a tool
 * without an SLA is never stale.
 * @module
 */
import type { Tool } from '../../model/schema.js';
import type { Registry } from '../../registry/registry.js';
import { raceAbort } from '../abort.js';
import { CallError } from '../errors.js';
import type { Principal } from '../identity/principal.js';
import type { Runtime } from '../runtime.js';
import type { ProbeAdapters } from './adapters.js';
import { PROBE_FILE } from './file-provider.js';
import { ProbeMappingError } from './mapping.js';
import { checkObservations } from './observations.js';
import type { ProbeCall, ProbeContext, SourceReport, SourceStatus, TaskSnapshot } from './types.js';

/** Who asks for a snapshot, and how. */
export interface SnapshotRequest {
  /** The authenticated principal; its persona rules apply (absent: a trusted caller). */
  principal?: Principal | undefined;
  /** The persona asked for (default: the principal's default persona). */
  persona?: string | undefined;
  /** A name for the audit log when there is no principal. */
  caller?: string | undefined;
  /** The caller going away. */
  signal?: AbortSignal | undefined;
}

/** What the snapshot needs of a runtime. */
export type ProbeRuntime = Pick<Runtime, 'call' | 'resolvePersona' | 'redactor'>;

/** Timeout of a tool that declares none, seconds (the router's default too). */
const DEFAULT_TIMEOUT_SEC = 30;

/**
 * Whether a tool is a task source (Xena's rule): enabled, capability `tasks.probe`, task role `source`.
 * @example isTaskSource(tool) // true for tool.tasks.example.source
 */
export function isTaskSource(tool: Tool): boolean {
  return tool.enabled !== false && (tool.capabilities ?? []).includes('tasks.probe') && (tool.surface?.taskRoles ?? []).includes('source');
}

/** The provider type of the entry named `provider` of `tool`. */
function providerTypeOf(tool: Tool, provider: string): string | undefined {
  if (provider === PROBE_FILE) return PROBE_FILE;
  const entry = tool.providers?.find((p) => p.name === provider);
  const declared = entry?.config?.['type'];
  return typeof declared === 'string' && declared !== '' ? declared : entry?.name;
}

/** A probe that did not finish within the tool's timeout. */
class ProbeTimeout extends Error {
  override readonly name = 'ProbeTimeout' as const;
}

/** Probe one source. Never throws: every failure is the report's `error`. */
async function probeSource(runtime: ProbeRuntime, adapters: ProbeAdapters, tool: Tool, persona: string | undefined, request: SnapshotRequest, now: () => number): Promise<SourceReport> {
  const base: Omit<SourceReport, 'status'> = {
    tool: tool.name,
    ...(tool.id !== undefined && tool.id !== tool.name ? { id: tool.id } : {}),
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.surface?.freshnessSlaSec !== undefined ? { freshnessSlaSec: tool.surface.freshnessSlaSec } : {}),
  };
  const choice = adapters.adapterFor(tool);
  if ('unsupported' in choice) return { ...base, status: 'unsupported', reason: choice.unsupported };
  const adapter = choice.adapter;
  const timeoutSec = tool.execution?.timeoutSec ?? DEFAULT_TIMEOUT_SEC;
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutSec * 1000), ...(request.signal ? [request.signal] : [])]);
  const callIds: string[] = [];
  const context: ProbeContext = {
    tool,
    signal,
    async call(args = {}): Promise<ProbeCall> {
      const r = await runtime.call(tool.name, args, {
        ...(request.principal ? { principal: request.principal } : {}),
        ...(persona !== undefined ? { persona } : {}),
        ...(request.caller !== undefined ? { caller: request.caller } : {}),
        signal,
      });
      callIds.push(r.callId);
      if (r.status !== 'ok') throw new ProbeMappingError(`the call needs approval (${r.approval.id}); a snapshot does not wait for one`);
      const providerType = providerTypeOf(tool, r.provider);
      return { callId: r.callId, provider: r.provider, ...(providerType !== undefined ? { providerType } : {}), result: r.result };
    },
  };
  const started = now();
  const done = (report: Omit<SourceReport, 'tool' | 'adapter' | 'callIds' | 'durationMs'>): SourceReport => ({
    ...base,
    adapter: adapter.name,
    ...report,
    ...(callIds.length > 0 ? { callIds } : {}),
    durationMs: now() - started,
  });
  let items: readonly unknown[];
  try {
    items = await raceAbort(Promise.resolve().then(() => adapter.probe(context)), signal, () =>
      request.signal?.aborted ? new ProbeTimeout('the snapshot was cancelled') : new ProbeTimeout(`the probe did not finish within ${timeoutSec} s (execution.timeoutSec)`),
    );
    if (!Array.isArray(items)) throw new ProbeMappingError(`adapter "${adapter.name}" returned ${typeof items}, not a list of observations`);
  } catch (error) {
    if (error instanceof CallError) return done({ status: 'error', code: error.code, reason: error.message });
    const code = error instanceof ProbeTimeout ? 'TIMEOUT' : error instanceof ProbeMappingError ? 'PROBE_MAPPING' : 'PROBE_FAILED';
    return done({ status: 'error', code, reason: runtime.redactor.redactText(error instanceof Error ? error.message : String(error)) });
  }
  const checked = checkObservations(items, tool.surface?.freshnessSlaSec, now());
  const newest = checked.observations[0];
  const extras = {
    ...(checked.rejected.length > 0 ? { rejected: checked.rejected } : {}),
    ...(checked.truncated > 0 ? { truncated: checked.truncated } : {}),
  };
  if (newest === undefined && checked.rejected.length > 0) {
    return done({ status: 'error', code: 'BAD_OBSERVATIONS', reason: `none of the ${items.length} items the adapter returned is a valid observation (see rejected)`, ...extras });
  }
  const status: SourceStatus = newest?.stale ? 'stale' : 'ok';
  return done({ status, ...(newest ? { newestAt: newest.updatedAt } : {}), observations: checked.observations, ...extras });
}

/**
 * Probe every task source the persona may call and report each.
 * Throws CallError FORBIDDEN_PERSONA / UNKNOWN_PERSONA for a persona the
 * principal may not use; everything else is in the reports.
 * @example const snap = await taskSnapshot(runtime, registry, new ProbeAdapters(), { persona: 'ops' });
 */
export async function taskSnapshot(runtime: ProbeRuntime, registry: Pick<Registry, 'snapshot'>, adapters: ProbeAdapters, request: SnapshotRequest = {}, clock: () => number = Date.now): Promise<TaskSnapshot> {
  const persona = runtime.resolvePersona(request.principal, request.persona);
  const sources = registry.snapshot().callableTools(persona).filter(isTaskSource);
  const generatedAt = new Date(clock()).toISOString();
  const reports = await Promise.all(sources.map((tool) => probeSource(runtime, adapters, tool, persona, request, clock)));
  const counts: Record<SourceStatus, number> = { ok: 0, stale: 0, error: 0, unsupported: 0 };
  for (const r of reports) counts[r.status]++;
  return { generatedAt, ...(persona !== undefined ? { persona } : {}), counts, sources: reports };
}
