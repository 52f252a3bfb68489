/**
 * The `webhooks` section: which tools take webhooks (`POST /hooks/{toolId}`)
 * and how each proves its sender (an HMAC secret or a key, from environment
 * variables the config names: the config never holds a secret), and where
 * events go: the store's workflow inbox (the default), NATS JetStream or
 * Temporal. {@link openWebhooks} turns it into the API's WebhookOptions.
 * @module
 */
import { Type } from '@sinclair/typebox';
import type { Dispatcher } from '../../runtime/dispatch/dispatcher.js';
import type { WebhookOptions } from '../../server/routes/hooks.js';
import { effectiveToleranceSec, type WebhookTool } from '../../server/webhook-signature.js';
import type { ConfigReading } from '../reading.js';

/** Where events go. */
export type DispatcherConfig =
  | { kind: 'inbox' }
  | { kind: 'jetstream'; servers: string[]; stream?: string; subjectPrefix?: string; duplicateWindowSec?: number }
  | { kind: 'temporal'; address: string; namespace?: string; taskQueue: string };

/** One tool's webhook, as configured (env var names, not secrets). */
export interface WebhookToolConfig {
  secretEnv?: string;
  keyEnv?: string;
  toleranceSec?: number;
  workflowIdPointer?: string;
  eventIdPointer?: string;
}

/** The `webhooks` section, as read. */
export interface WebhooksConfig {
  dispatcher: DispatcherConfig;
  tools: Record<string, WebhookToolConfig>;
}

const DISPATCHER_KINDS = ['inbox', 'jetstream', 'temporal'] as const;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const POINTER = /^(\/[^/]*)+$/;
const Env = (what: string) => Type.Optional(Type.String({ pattern: ENV_NAME.source, description: what }));

/** `webhooks`: `dispatcher` and `tools.<toolId>`. */
export const WebhooksSchema = Type.Object(
  {
    dispatcher: Type.Optional(
      Type.Object(
        {
          kind: Type.Unsafe<DispatcherConfig['kind']>({ type: 'string', enum: [...DISPATCHER_KINDS], default: 'inbox' }),
          servers: Type.Optional(Type.Array(Type.String(), { description: 'jetstream: NATS servers (default 127.0.0.1:4222).' })),
          stream: Type.Optional(Type.String({ description: 'jetstream: the stream (default TOOLCAP_WORKFLOWS).' })),
          subjectPrefix: Type.Optional(Type.String({ description: 'jetstream: subject prefix (default toolcap.workflows).' })),
          duplicateWindowSec: Type.Optional(Type.Integer({ minimum: 1, description: 'jetstream: a new stream\'s duplicate window (default 86400).' })),
          address: Type.Optional(Type.String({ description: 'temporal: the frontend, host:port.' })),
          namespace: Type.Optional(Type.String({ description: 'temporal: the namespace (default "default").' })),
          taskQueue: Type.Optional(Type.String({ description: 'temporal: the task queue workflows start on.' })),
        },
        { additionalProperties: false },
      ),
    ),
    tools: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Object(
          {
            secretEnv: Env('The environment variable holding the HMAC secret (X-Toolcap-Signature).'),
            keyEnv: Env('The environment variable holding a shared key (X-Toolcap-Webhook-Key), for senders that cannot sign.'),
            toleranceSec: Type.Optional(Type.Integer({ minimum: 1, maximum: 86400, default: 300 })),
            workflowIdPointer: Type.Optional(Type.String({ pattern: POINTER.source, default: '/workflowId' })),
            eventIdPointer: Type.Optional(Type.String({ pattern: POINTER.source, default: '/event_id' })),
          },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false, description: 'Webhooks of tools with workflowRoutes, and where their events go (docs/config.md#webhooks).' },
);

/** Read `webhooks` (optional). */
export function readWebhooks(reading: ConfigReading): WebhooksConfig | undefined {
  const r = reading.top.object('webhooks');
  if (!r) return undefined;
  const out: WebhooksConfig = { dispatcher: { kind: 'inbox' }, tools: {} };
  const d = r.object('dispatcher');
  if (d) {
    const kind = d.enumValue('kind', DISPATCHER_KINDS) ?? 'inbox';
    if (kind === 'jetstream') {
      const window = d.number('duplicateWindowSec', { integer: true, min: 1 });
      const [stream, subjectPrefix] = [d.string('stream'), d.string('subjectPrefix')];
      out.dispatcher = { kind, servers: d.strings('servers') ?? ['127.0.0.1:4222'], ...(stream ? { stream } : {}), ...(subjectPrefix ? { subjectPrefix } : {}), ...(window ? { duplicateWindowSec: window } : {}) };
    } else if (kind === 'temporal') {
      const [address, namespace, taskQueue] = [d.string('address'), d.string('namespace'), d.string('taskQueue')];
      if (!address || !taskQueue) reading.report('MISSING_FIELD', 'webhooks.dispatcher of kind temporal needs "address" and "taskQueue".', d.pointer, { hint: 'Write address: 127.0.0.1:7233 and taskQueue: xena.' });
      else out.dispatcher = { kind, address, taskQueue, ...(namespace ? { namespace } : {}) };
    }
    d.rest({ where: 'webhooks.dispatcher (known: kind, servers, stream, subjectPrefix, duplicateWindowSec, address, namespace, taskQueue)' });
  }
  const tools = r.object('tools');
  for (const id of tools ? Object.keys(tools.value) : []) {
    const t = tools!.object(id);
    if (!t) continue;
    const tool: WebhookToolConfig = {};
    for (const key of ['secretEnv', 'keyEnv'] as const) {
      const v = t.string(key);
      if (v !== undefined && !ENV_NAME.test(v)) reading.report('INVALID_VALUE', `"${key}" must be an environment variable name.`, t.at(key), {});
      else if (v !== undefined) tool[key] = v;
    }
    if (!t.has('secretEnv') && !t.has('keyEnv')) reading.report('MISSING_FIELD', `The webhook of "${id}" needs "secretEnv" (signed) or "keyEnv" (keyed).`, t.pointer, { hint: 'Write secretEnv: MANUS_WEBHOOK_SECRET and set that variable.' });
    const tolerance = t.number('toleranceSec', { integer: true, min: 1, max: 86400 });
    if (tolerance !== undefined) tool.toleranceSec = tolerance;
    for (const key of ['workflowIdPointer', 'eventIdPointer'] as const) {
      const v = t.string(key);
      if (v !== undefined && !POINTER.test(v)) reading.report('INVALID_VALUE', `"${key}" must be a JSON pointer such as /workflowId.`, t.at(key), {});
      else if (v !== undefined) tool[key] = v;
    }
    t.rest({ where: `webhooks.tools.${id} (known: secretEnv, keyEnv, toleranceSec, workflowIdPointer, eventIdPointer)` });
    out.tools[id] = tool;
  }
  r.rest({ where: 'webhooks (known: dispatcher, tools)' });
  return out;
}

/**
 * The API's webhook options: secrets read from `env`, the dispatcher
 * connected (the inbox needs nothing: the API finds the store's). `warnings`
 * name variables that are not set (those webhooks answer 401).
 */
export async function openWebhooks(section: WebhooksConfig, env: NodeJS.ProcessEnv): Promise<{ options: WebhookOptions; warnings: string[]; close(): Promise<void> }> {
  const warnings: string[] = [];
  const tools: Record<string, WebhookTool> = {};
  for (const [id, t] of Object.entries(section.tools)) {
    const secret = t.secretEnv !== undefined ? env[t.secretEnv] : undefined;
    const key = t.keyEnv !== undefined ? env[t.keyEnv] : undefined;
    if (!secret && !key) warnings.push(`webhooks: ${[t.secretEnv, t.keyEnv].filter(Boolean).join(' / ')} is not set; webhooks of ${id} are refused (401)`);
    tools[id] = { ...(secret ? { secret } : {}), ...(key && !secret ? { key } : {}), ...(t.toleranceSec ? { toleranceSec: t.toleranceSec } : {}), ...(t.workflowIdPointer ? { workflowIdPointer: t.workflowIdPointer } : {}), ...(t.eventIdPointer ? { eventIdPointer: t.eventIdPointer } : {}) };
  }
  const c = section.dispatcher;
  let dispatcher: Dispatcher | undefined;
  // loaded only when configured: reading a config does not load the NATS or Temporal clients
  if (c.kind === 'jetstream') dispatcher = await (await import('../../runtime/dispatch/jetstream.js')).jetStreamDispatcher({ servers: c.servers, ...(c.stream ? { stream: c.stream } : {}), ...(c.subjectPrefix ? { subjectPrefix: c.subjectPrefix } : {}), ...(c.duplicateWindowSec ? { duplicateWindowSec: c.duplicateWindowSec } : {}) });
  else if (c.kind === 'temporal') dispatcher = await (await import('../../runtime/dispatch/temporal.js')).connectTemporal(c);
  const window = dispatcher?.dedupeWindowSec;
  for (const [id, t] of Object.entries(tools)) {
    if (t.secret === undefined || window === undefined) continue;
    const held = effectiveToleranceSec(t, window);
    if (held < (t.toleranceSec ?? 300)) warnings.push(`webhooks: the ${c.kind} dispatcher remembers event keys for ${window} s, so signed webhooks of ${id} are accepted within ${held} s of their timestamp, not ${t.toleranceSec ?? 300} s (a replay inside the tolerance must still be a duplicate); raise the stream's duplicate window to at least ${2 * (t.toleranceSec ?? 300)} s`);
  }
  return { options: { tools, ...(dispatcher ? { dispatcher } : {}) }, warnings, close: async () => dispatcher?.close?.() };
}
