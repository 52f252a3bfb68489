/**
 * The GC-Forged-Pylot tool manifest (`config/tool_manifest.json` or `.yaml`):
 * `schema_version`, `metadata` and `tools[]` whose entries name a Python
 * `module`. See docs/dialects/pylot.md for the field mapping.
 * @module
 */
import { isPlainObject } from '../source/reader.js';
import { defineDialect, type DetectHints } from './types.js';
import { importPylot } from './pylot/document.js';
import { exportPylot } from './pylot/export.js';

/** Where Pylot keeps its manifest: `tool_manifest.json|yaml|yml` under any folder. */
const MANIFEST_PATH = /(^|\/)tool_manifest\.(json|ya?ml)$/i;

/**
 * How sure we are that `value` is a Pylot manifest: `schema_version` beside a
 * `tools` array, or tool entries naming a `module`, each enough on its own;
 * the file name adds a little, and alone (with a `tools` array) just tips it.
 */
function detectPylot(value: unknown, hints: DetectHints): number {
  if (!isPlainObject(value) || 'toolcap' in value) return 0;
  const tools = value['tools'];
  if (!Array.isArray(tools)) return 0;
  const versioned = 'schema_version' in value;
  const modules = tools.some((t) => isPlainObject(t) && typeof t['module'] === 'string');
  const named = MANIFEST_PATH.test(hints.path);
  if (!versioned && !modules) return named ? 0.55 : 0;
  const score = versioned && modules ? 0.95 : versioned ? 0.85 : 0.8;
  return Math.min(1, score + (named ? 0.05 : 0));
}

/**
 * Canonical field -> pointer suffix in a Pylot tool entry. Derived effects
 * point at `permissions`, the source they were read from.
 */
const FIELD_MAP = {
  name: '/name',
  description: '/description',
  enabled: '/enabled',
  permissions: '/permissions',
  inputSchema: '/inputs',
  outputSchema: '/outputs',
  'implementation.module': '/module',
  'implementation.export': '/class_name',
  'execution.timeoutSec': '/runtime/timeout_seconds',
  'execution.allowParallel': '/runtime/concurrency',
  'execution.resources': '/runtime',
  'effects.sideEffects': '/permissions',
  'effects.mode': '/permissions',
  notes: '/notes',
  auditStatus: '/audit_status',
} as const satisfies Record<string, string>;

/**
 * The Pylot dialect.
 * @example
 * pylotDialect.detect({ schema_version: '1.0', tools: [] }, { path: 'config/tool_manifest.yaml' }) // > 0.5
 * pylotDialect.import(context) // { bundle, tools: [{ value: { name: 'git_status', ... }, pointer: '/tools/0' }], ... }
 */
export const pylotDialect = defineDialect({
  id: 'pylot',
  title: 'GC-Forged-Pylot tool manifest',
  detect: detectPylot,
  import: importPylot,
  export: exportPylot,
  fieldMaps: { tool: FIELD_MAP },
});
