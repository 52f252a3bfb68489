/**
 * The OpenAPI schema of `GET /tasks/snapshot`'s answer (runtime/probes/types.ts).
 * @module
 */
import { SOURCE_STATUSES } from '../runtime/probes/types.js';
import type { Json } from './openapi-parts.js';

const observation: Json = {
  type: 'object',
  required: ['taskId', 'title', 'state', 'updatedAt', 'ageSec', 'stale'],
  properties: {
    taskId: { type: 'string' },
    title: { type: 'string' },
    state: { type: 'string' },
    updatedAt: { type: 'string', format: 'date-time' },
    url: { type: 'string', format: 'uri' },
    assignee: { type: 'string' },
    ageSec: { type: 'integer', minimum: 0 },
    stale: { type: 'boolean', description: 'Older than the tool\'s surface.freshnessSlaSec.' },
  },
};

const source: Json = {
  type: 'object',
  required: ['tool', 'status'],
  properties: {
    tool: { type: 'string' },
    id: { type: 'string', description: 'The id as the manifest writes it, when it differs from the name.' },
    title: { type: 'string' },
    status: { type: 'string', enum: [...SOURCE_STATUSES] },
    adapter: { type: 'string' },
    reason: { type: 'string', description: 'Why error or unsupported (redacted).' },
    code: { type: 'string', description: 'For error: the runtime\'s error code, or TIMEOUT, PROBE_MAPPING, PROBE_FAILED, BAD_OBSERVATIONS.' },
    freshnessSlaSec: { type: 'number' },
    newestAt: { type: 'string', format: 'date-time' },
    observations: { type: 'array', items: observation },
    rejected: { type: 'array', items: { type: 'object', properties: { index: { type: 'integer' }, field: { type: 'string' }, reason: { type: 'string' } } } },
    truncated: { type: 'integer' },
    callIds: { type: 'array', items: { type: 'string' }, description: 'The calls made through the runtime (see /audit).' },
    durationMs: { type: 'number' },
  },
};

/** `{ generatedAt, persona?, counts, sources }`. */
export const TASK_SNAPSHOT_SCHEMA: Json = {
  type: 'object',
  required: ['generatedAt', 'counts', 'sources'],
  properties: {
    generatedAt: { type: 'string', format: 'date-time' },
    persona: { type: 'string' },
    counts: { type: 'object', properties: Object.fromEntries(SOURCE_STATUSES.map((s) => [s, { type: 'integer' }])) },
    sources: { type: 'array', items: source },
  },
};
