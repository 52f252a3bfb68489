/**
 * Is a document a list of OpenAI tools? The wrapped form
 * `{type: "function", function: {...}}` is OpenAI's own; a bare
 * `{name, description, parameters}` function is shared with ATLAS
 * `functions.json` and other formats, so it scores lower and yields to any
 * sign of another format.
 * @module
 */
import { isPlainObject } from '../../source/reader.js';
import type { DetectHints } from '../types.js';

/** Wrapped Chat Completions or Responses API form: `type` says it. */
const TYPED_SCORE = 0.95;
/** A bare function object: likely ours, but not ours alone. */
const BARE_SCORE = 0.6;
/** Bare functions in ATLAS's `functions.json`: below ATLAS's own claim there. */
const BARE_AT_ATLAS_PATH = 0.4;

/**
 * Keys that mark another format: MCP (`inputSchema`), OpenAPI, canonical,
 * Pylot, capability manifests and Xena, ATLAS tool markers, Shinkai metadata.
 */
const FOREIGN_KEYS = [
  'inputSchema',
  'inputSchemaRef',
  'openapi',
  'swagger',
  'paths',
  'toolcap',
  'schema_version',
  'module',
  'capabilities',
  'surface',
  'side_effects',
  'default_timeout',
  'allow_parallel',
  'requires_consent',
  'idempotency_key',
  'providers',
  'auth',
  'safety_level',
  'tool_type',
  'configurations',
  'result',
  'sqlTables',
  'sqlQueries',
  'oauth',
];

/** OpenAI's non-function tool types: fine in a list of ours, not evidence on their own. */
const BUILT_IN_TYPES = new Set(['code_interpreter', 'file_search', 'web_search', 'web_search_preview', 'computer_use_preview', 'image_generation', 'local_shell', 'mcp', 'custom']);

/**
 * `typed` and `bare` are evidence; `weak` (a parameterless `{name,
 * description}`) and `built-in` fit in a list of ours; `foreign` rules the
 * document out; `unknown` (e.g. an entry that lost its name) is tolerated
 * in a minority, so import can report it.
 */
type EntryKind = 'typed' | 'bare' | 'weak' | 'built-in' | 'foreign' | 'unknown';

/** The keys a bare function object may have. */
const FUNCTION_KEYS = new Set(['name', 'description', 'parameters', 'strict']);

function kindOf(entry: unknown): EntryKind {
  if (!isPlainObject(entry)) return 'unknown';
  if (FOREIGN_KEYS.some((k) => k in entry)) return 'foreign';
  const type = entry['type'];
  if (type === 'function') return isPlainObject(entry['function']) || typeof entry['name'] === 'string' ? 'typed' : 'unknown';
  if (typeof type === 'string') return BUILT_IN_TYPES.has(type) ? 'built-in' : 'foreign';
  if (type !== undefined || typeof entry['name'] !== 'string') return 'unknown';
  if (isPlainObject(entry['parameters'])) return 'bare';
  return Object.keys(entry).every((k) => FUNCTION_KEYS.has(k)) ? 'weak' : 'unknown';
}

/**
 * How sure we are that `value` is an OpenAI tool list or one tool (0..1).
 * Never throws. Any entry of another format rules the document out; entries
 * we do not recognise must be a minority.
 */
export function detectOpenai(value: unknown, hints: DetectHints): number {
  const entries = Array.isArray(value) ? value : [value];
  // one foreign entry rules the document out: stop there (an ATLAS file's first entry does)
  const kinds: EntryKind[] = [];
  for (const entry of entries) {
    const kind = kindOf(entry);
    if (kind === 'foreign') return 0;
    kinds.push(kind);
  }
  const unknown = kinds.filter((k) => k === 'unknown').length;
  if (unknown * 2 > kinds.length) return 0;
  if (kinds.includes('typed')) return TYPED_SCORE;
  if (!kinds.includes('bare')) return 0;
  return /(^|\/)functions\.json$/.test(hints.path.replace(/\\/g, '/')) ? BARE_AT_ATLAS_PATH : BARE_SCORE;
}
