/**
 * One canonical tool back into a `functions.json` entry. Only what ATLAS can
 * say is written: canonical fields ATLAS has no key for (mode, latency,
 * surface, ...) are left out.
 * @module
 */
import { declared } from '../../model/derive.js';
import { compact } from '../../model/objects.js';
import type { Auth, Tool } from '../../model/schema.js';
import { isPlainObject } from '../../source/reader.js';
import { mirrorOf, overlay } from './mirror.js';

/** The ATLAS entry for a tool; derived values are dropped first. */
export function exportTool(tool: Tool): Record<string, unknown> {
  const t = declared(tool);
  const { providers: providerExtras, ...mirror } = mirrorOf(t);
  const entry = compact<Record<string, unknown>>({
    // ATLAS needs a name even when the canonical one was derived.
    name: tool.name,
    version: t.version,
    description: t.description,
    enabled: t.enabled,
    tags: t.tags,
    notes: t.notes,
    side_effects: t.effects?.sideEffects,
    safety_level: t.effects?.risk,
    default_timeout: t.execution?.timeoutSec,
    auth: t.auth === undefined ? undefined : exportAuth(t.auth),
    allow_parallel: t.execution?.allowParallel,
    // ATLAS has one approval key: a required approval is written as consent (the stricter reading), not dropped
    requires_consent: t.approval?.consent === true || t.approval?.required === true ? true : t.approval?.consent,
    idempotency_key: exportIdempotencyKey(t.execution?.idempotencyKey, mirror['idempotency_key']),
    cost_per_call: t.cost?.estimatedDollars,
    capabilities: t.capabilities,
    providers: t.providers?.map((p) => compact<Record<string, unknown>>({ name: p.name, priority: p.priority, config: p.config })),
    parameters: t.inputSchema,
  });
  // Provider extras only ever complete providers the canonical entry has.
  const extras = t.providers === undefined ? mirror : { ...mirror, providers: providerExtras };
  return overlay(entry ?? {}, extras) as Record<string, unknown>;
}

function exportAuth(auth: Auth): Record<string, unknown> {
  return (
    compact<Record<string, unknown>>({
      required: auth.required,
      type: auth.type,
      scopes: auth.scopes,
      envs: auth.envs,
      docs: auth.docs,
    }) ?? {}
  );
}

/**
 * A boolean, unless the source wrote the object form (its other keys are in
 * the mirror): then `{ required }`, which the mirror completes.
 */
function exportIdempotencyKey(value: boolean | string | undefined, kept: unknown): unknown {
  if (!isPlainObject(kept)) return value;
  return typeof value === 'boolean' ? { required: value } : {};
}
