/**
 * Task observations: the normalized shape every probe adapter's output is
 * checked against, and the freshness rule. An adapter's raw items are
 * untrusted: each is checked field by field; a bad one is reported (its
 * index, the field and why; never its values) and left out.
 * @module
 */

/** One task as a source reports it, normalized. */
export interface Observation {
  /** The task's id in its system (numbers become strings). */
  taskId: string;
  title: string;
  /** The task's state in its system's words (`open`, `In Progress`, ...). */
  state: string;
  /** When the task last changed, ISO 8601 in UTC. */
  updatedAt: string;
  /** An http(s) link to the task. */
  url?: string;
  assignee?: string;
}

/** An observation with its freshness against the tool's `surface.freshnessSlaSec`. */
export interface TimedObservation extends Observation {
  /** Seconds since `updatedAt` (0 for a time in the future). */
  ageSec: number;
  /** Older than the tool's freshness SLA (never, when the tool declares none). */
  stale: boolean;
}

/** An item an adapter returned that is not a valid observation. */
export interface RejectedObservation {
  /** Its position in the adapter's output. */
  index: number;
  /** The field at fault (absent when the item is not an object). */
  field?: string;
  reason: string;
}

/** Most observations kept per source; more are counted in `truncated`. */
export const MAX_OBSERVATIONS = 1000;

/** Epoch numbers below this are seconds, from it on milliseconds (1e11 s is the year 5138; 1e11 ms is 1973). */
const EPOCH_MS_FROM = 1e11;

type Checked = { ok: true; value: Observation } | { ok: false; field?: string; reason: string };

function text(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** ISO 8601 / RFC 3339 text, or epoch seconds or milliseconds, as ISO in UTC. */
export function normalizeTime(value: unknown): string | undefined {
  let ms: number;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) ms = value < EPOCH_MS_FROM ? value * 1000 : value;
  else if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value)) ms = Date.parse(value);
  else return undefined;
  if (!Number.isFinite(ms)) return undefined;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function httpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * Check one raw item: `taskId`, `title`, `state` (strings; a number id
 * becomes text), `updatedAt` (ISO 8601 text or epoch seconds/ms), `url`
 * (http or https) and `assignee` (text) when present. Other fields are
 * dropped.
 * @example checkObservation({ taskId: 7, title: 'Fix', state: 'open', updatedAt: '2025-01-02T03:04:05Z' })
 */
export function checkObservation(item: unknown): Checked {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return { ok: false, reason: 'not an object' };
  const o = item as Record<string, unknown>;
  const taskId = text(o['taskId']);
  if (taskId === undefined) return { ok: false, field: 'taskId', reason: 'missing, or not a non-empty string or number' };
  const title = typeof o['title'] === 'string' && o['title'].trim() !== '' ? o['title'] : undefined;
  if (title === undefined) return { ok: false, field: 'title', reason: 'missing, or not a non-empty string' };
  const state = typeof o['state'] === 'string' && o['state'].trim() !== '' ? o['state'] : undefined;
  if (state === undefined) return { ok: false, field: 'state', reason: 'missing, or not a non-empty string' };
  const updatedAt = normalizeTime(o['updatedAt']);
  if (updatedAt === undefined) return { ok: false, field: 'updatedAt', reason: 'missing, or not an ISO 8601 time or epoch number' };
  const value: Observation = { taskId, title, state, updatedAt };
  const url = o['url'];
  if (url !== undefined && url !== null) {
    if (typeof url !== 'string' || !httpUrl(url)) return { ok: false, field: 'url', reason: 'not an http(s) URL' };
    value.url = url;
  }
  const assignee = o['assignee'];
  if (assignee !== undefined && assignee !== null) {
    const name = text(assignee);
    if (name === undefined) return { ok: false, field: 'assignee', reason: 'not a non-empty string' };
    value.assignee = name;
  }
  return { ok: true, value };
}

/** What a source's raw items come to: the valid observations, timed, newest first; the rejected ones; how many were cut. */
export interface CheckedObservations {
  observations: TimedObservation[];
  rejected: RejectedObservation[];
  truncated: number;
}

/**
 * Check an adapter's items and time them against `slaSec` at `now`. An
 * observation is stale when `now - updatedAt > slaSec` seconds.
 */
export function checkObservations(items: readonly unknown[], slaSec: number | undefined, now: number): CheckedObservations {
  const observations: TimedObservation[] = [];
  const rejected: RejectedObservation[] = [];
  items.forEach((item, index) => {
    const checked = checkObservation(item);
    if (!checked.ok) {
      rejected.push({ index, ...(checked.field !== undefined ? { field: checked.field } : {}), reason: checked.reason });
      return;
    }
    const ageSec = Math.max(0, Math.floor((now - Date.parse(checked.value.updatedAt)) / 1000));
    observations.push({ ...checked.value, ageSec, stale: slaSec !== undefined && ageSec > slaSec });
  });
  observations.sort((a, b) => a.ageSec - b.ageSec || (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));
  const truncated = Math.max(0, observations.length - MAX_OBSERVATIONS);
  return { observations: observations.slice(0, MAX_OBSERVATIONS), rejected: rejected.slice(0, MAX_OBSERVATIONS), truncated };
}
