/**
 * The OpenAPI 3.x and Swagger 2.0 dialect: one tool per operation, with its
 * input and output schemas (every `$ref` resolved, across files too), auth
 * from the security schemes, an `http` provider, and effects inferred from
 * the HTTP method. See docs/dialects/openapi.md for the full mapping.
 *
 * Import only: `export` returns no files. An OpenAPI document is the API's
 * own description, owned upstream; toolcap reads it and keeps its decisions
 * (overrides, approvals) in its own manifests layered on top.
 * @module
 */
import { detectOpenApi } from './openapi/detect.js';
import { importOpenApi } from './openapi/import.js';
import { defineDialect, type CanonicalFragment, type ExportedFile } from './types.js';

/**
 * Where each canonical field lives, relative to the operation object (e.g.
 * `/paths/~1pets/get`). Inferred values (effects from the method) have no
 * source line: their pointers name the `x-toolcap-*` extension that would
 * declare them instead.
 */
const FIELD_MAP = {
  name: '/operationId',
  id: '/operationId',
  title: '/summary',
  description: '/description',
  tags: '/tags',
  inputSchema: '/parameters',
  outputSchema: '/responses',
  auth: '/security',
  'auth.scopes': '/security',
  'auth.type': '/security',
  'auth.required': '/security',
  providers: '',
  extensions: '',
  effects: '/x-toolcap-effects',
  'effects.mode': '/x-toolcap-effects/mode',
  'effects.sideEffects': '/x-toolcap-effects/sideEffects',
  'effects.reversible': '/x-toolcap-effects/reversible',
  'effects.risk': '/x-toolcap-effects/risk',
  'effects.deterministic': '/x-toolcap-effects/deterministic',
  'effects.rollbackHint': '/x-toolcap-effects/rollbackHint',
  approval: '/x-toolcap-approval',
  'approval.required': '/x-toolcap-approval/required',
  'approval.consent': '/x-toolcap-approval/consent',
  execution: '/x-toolcap-execution',
  'execution.timeoutSec': '/x-toolcap-execution/timeoutSec',
  'execution.idempotent': '/x-toolcap-execution/idempotent',
  'execution.retryClass': '/x-toolcap-execution/retryClass',
  'execution.allowParallel': '/x-toolcap-execution/allowParallel',
  cost: '/x-toolcap-cost',
  latency: '/x-toolcap-latency',
  surface: '/x-toolcap-surface',
  capabilities: '/x-toolcap-capabilities',
  alternatives: '/x-toolcap-alternatives',
  hints: '/x-toolcap-hints',
} as const satisfies Record<string, string>;

/** Import only this round: there is nothing to write back. */
function exportNothing(_fragment: CanonicalFragment): ExportedFile[] {
  return [];
}

/**
 * The `openapi` dialect.
 * @example
 * const doc = openapiDialect.import(createImportContext(parsed.file));
 * doc.tools[0]?.value.providers // [{ name: 'http', priority: 0, config: { server, method: 'GET', path: '/pets' } }]
 */
export const openapiDialect = defineDialect({
  id: 'openapi',
  title: 'OpenAPI 3.x and Swagger 2.0',
  detect: detectOpenApi,
  import: importOpenApi,
  export: exportNothing,
  fieldMaps: { tool: FIELD_MAP },
});
