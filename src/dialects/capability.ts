/**
 * The capability manifest dialect: the YAML manifests of the blog post
 * "Tool Capability Manifests for AI Agents That Need to Pick the Right Tool".
 * One file is one tool (`name`, `summary`, `inputSchemaRef`, `capabilities`)
 * or a list of them; input schemas live in separate files next to it.
 * See docs/dialects/capability.md for the full mapping.
 * @module
 */
import { detectCapability } from './capability/detect.js';
import { exportCapability } from './capability/export.js';
import { importCapability } from './capability/import.js';
import { defineDialect } from './types.js';

/**
 * Where each canonical field lives in a capability manifest, relative to the
 * entry. `inputSchema` points at `inputSchemaRef`: the schema usually lives in
 * another file and the reference is the line to fix.
 */
const FIELD_MAP = {
  name: '/name',
  description: '/summary',
  inputSchema: '/inputSchemaRef',
  inputSchemaRef: '/inputSchemaRef',
  effects: '/capabilities',
  'effects.mode': '/capabilities/mode',
  'effects.sideEffects': '/capabilities/sideEffects/external',
  'effects.external': '/capabilities/sideEffects/external',
  'effects.reversible': '/capabilities/sideEffects/reversible',
  'effects.rollbackHint': '/capabilities/sideEffects/rollbackHint',
  auth: '/capabilities/auth',
  'auth.scopes': '/capabilities/auth/scope',
  approval: '/capabilities/auth',
  'approval.required': '/capabilities/auth/humanApprovalRequired',
  cost: '/capabilities/cost',
  'cost.lane': '/capabilities/cost/lane',
  'cost.estimatedDollars': '/capabilities/cost/estimatedDollars',
  latency: '/capabilities/latency',
  'latency.p50Ms': '/capabilities/latency/p50Ms',
  'latency.p95Ms': '/capabilities/latency/p95Ms',
  execution: '/capabilities/reliability',
  'execution.idempotent': '/capabilities/reliability/idempotent',
  'execution.retryClass': '/capabilities/reliability/retryClass',
  observability: '/capabilities/observability',
  'observability.traceAttrs': '/capabilities/observability/emitTraceAttrs',
  alternatives: '/capabilities/alternatives',
} as const satisfies Record<string, string>;

/**
 * The `capability` dialect.
 * @example
 * const doc = capabilityDialect.import(createImportContext(parsed.file));
 * doc.tools[0]?.value.effects // { mode: 'write', sideEffects: 'write', external: true, ... }
 */
export const capabilityDialect = defineDialect({
  id: 'capability',
  title: 'capability manifest YAML',
  detect: detectCapability,
  import: importCapability,
  export: exportCapability,
  fieldMaps: { tool: FIELD_MAP },
});
