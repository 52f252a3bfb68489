/**
 * Observed health added to the catalog's job and summary answers: each
 * job's rolling health (`health`, as ATLAS's `health.job`: calls made with
 * that `job`), and for a summary the tools of its view by health status,
 * naming the unavailable ones (a missing credential). Without a runtime
 * nothing is observed: every job is `unknown`.
 * @module
 */
import type { HealthSource, HealthSummary } from '../model/health.js';
import type { CatalogSummary, JobSummary } from '../registry/summary.js';
import type { Snapshot } from '../registry/snapshot.js';
import type { Runtime } from '../runtime/runtime.js';

const UNKNOWN: HealthSummary = { status: 'unknown' };

/** A job summary with its source spelling (`id`, when the name was normalised) and its observed health. */
export type JobWithHealth = JobSummary & { id?: string; health: HealthSummary & { lastOutcome?: unknown } };

/**
 * Every job with its health (`unknown` until a call names the job). A call
 * may name a job by its canonical name or by its source spelling (ATLAS's
 * `MorningBriefing` is `morning_briefing`): either finds it.
 */
export function jobsWithHealth(jobs: readonly JobSummary[], snapshot: Snapshot, runtime: Runtime | undefined): JobWithHealth[] {
  const ids = new Map(snapshot.jobs.filter((j) => j.id !== undefined).map((j) => [j.name, j.id as string]));
  return jobs.map((job) => {
    const id = ids.get(job.name);
    const health = runtime?.health.job(job.name) ?? (id === undefined ? undefined : runtime?.health.job(id));
    return { ...job, ...(id === undefined ? {} : { id }), health: health ?? UNKNOWN };
  });
}

/**
 * The summary with job health and `toolHealth`: how many tools of the
 * summary's view are in each health status, and which are unavailable.
 */
export function summaryWithHealth(summary: CatalogSummary, snapshot: Snapshot, health: HealthSource, runtime: Runtime | undefined) {
  const tools = summary.persona === undefined ? snapshot.tools : snapshot.toolsFor(summary.persona);
  const byStatus: Record<HealthSummary['status'], number> = { unknown: 0, ok: 0, degraded: 0, down: 0, unavailable: 0 };
  const unavailable: string[] = [];
  for (const name of new Set(tools.filter((t) => t.enabled !== false).map((t) => t.name))) {
    const status = health.lookup(name)?.status ?? 'unknown';
    byStatus[status] += 1;
    if (status === 'unavailable') unavailable.push(name);
  }
  return { ...summary, jobs: jobsWithHealth(summary.jobs, snapshot, runtime), toolHealth: { byStatus, unavailable: unavailable.sort() } };
}
