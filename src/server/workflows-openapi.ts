/**
 * The route table entries of the workflow inbox (`/workflows/...`) and the
 * webhook's parameters, kept here so route-table.ts stays a list.
 * @module
 */
import { json, param, pathParam, type Json } from './openapi-parts.js';

const id = pathParam('id');

/** The parameters of `POST /hooks/{toolId}`. */
export const WEBHOOK_PARAMETERS: readonly Json[] = [
  pathParam('toolId'),
  param('workflowType', "Selects the tool's workflow route (metadata.workflowRoutes[].workflowType).", { type: 'string' }, { required: true }),
  { name: 'X-Toolcap-Timestamp', in: 'header', required: false, schema: { type: 'string' }, description: 'Unix seconds; signed with the body.' },
  { name: 'X-Toolcap-Signature', in: 'header', required: false, schema: { type: 'string' }, description: 'sha256=<hex>: HMAC-SHA256 with the tool\'s secret of "<timestamp>.<raw body>".' },
  { name: 'X-Toolcap-Webhook-Key', in: 'header', required: false, schema: { type: 'string' }, description: 'The shared key, for a tool configured with keyEnv.' },
  { name: 'X-Toolcap-Event-Id', in: 'header', required: false, schema: { type: 'string' }, description: 'The idempotency key of a keyed hook whose body has no event id (the body\'s event id comes first, else this, else the body\'s sha256); a signed hook ignores it, as the signature does not cover it.' },
];

const SIGNAL = { type: 'object', properties: { workflowId: { type: 'string' }, seq: { type: 'integer' }, signalName: { type: 'string' }, idempotencyKey: { type: 'string' }, payload: {}, receivedAt: { type: 'string' }, ackedAt: { type: ['string', 'null'] } } };

/** `/workflows/{id}`, its signals and their acknowledgement (action `workflows.work`). */
export const WORKFLOW_ROUTES = {
  getWorkflow: {
    method: 'GET', action: 'workflows.work', path: '/workflows/{id}', summary: 'One workflow of the inbox: type, name, bootstrap, signals so far',
    parameters: [id],
    responses: { '200': json({ type: 'object', properties: { workflow: { type: 'object', additionalProperties: true } } }, 'The workflow.') },
    problems: ['WORKFLOW_NOT_FOUND', 'STORE_UNAVAILABLE', 'NO_RUNTIME'],
  },
  workflowSignals: {
    method: 'GET', action: 'workflows.work', path: '/workflows/{id}/signals', summary: 'A workflow\'s pending signals in order (at least once: pending until acknowledged)',
    parameters: [
      id,
      param('after', 'Only signals with a higher seq.', { type: 'integer', minimum: 0, default: 0 }),
      param('limit', 'At most this many.', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }),
      param('all', 'Include acknowledged signals (1/true).', { type: 'string', enum: ['0', '1', 'true', 'false'] }),
    ],
    responses: { '200': json({ type: 'object', properties: { workflowId: { type: 'string' }, signals: { type: 'array', items: SIGNAL }, next: { type: 'string' } } }, 'Signals, oldest first.') },
    problems: ['BAD_PARAMETER', 'WORKFLOW_NOT_FOUND', 'STORE_UNAVAILABLE', 'NO_RUNTIME'],
  },
  ackSignal: {
    method: 'POST', action: 'workflows.work', path: '/workflows/{id}/signals/{seq}/ack', summary: 'Acknowledge one signal (again is harmless)',
    parameters: [id, pathParam('seq')],
    responses: { '200': json({ type: 'object', properties: { signal: SIGNAL } }, 'The signal, acknowledged.') },
    problems: ['BAD_PARAMETER', 'WORKFLOW_NOT_FOUND', 'STORE_UNAVAILABLE', 'NO_RUNTIME'],
  },
} as const;
