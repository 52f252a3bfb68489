/**
 * Is a document Shinkai tool metadata? Shinkai has no format marker, so the
 * score comes from its distinctive keys and the `metadata.json` file name.
 * @module
 */
import { isPlainObject } from '../../source/reader.js';
import type { DetectHints } from '../types.js';

/**
 * Keys that only tool metadata has. `parameters` alone is shared with
 * OpenAI functions and ATLAS entries, so it counts only as Shinkai's
 * `type: "object"` table and never suffices on its own.
 */
const STRONG_KEYS = ['tool_type', 'configurations', 'parameters', 'result', 'sqlTables', 'sqlQueries', 'oauth'] as const;
/** Keys package.json and agent metadata share with tools: supporting evidence only. */
const WEAK_KEYS = ['author', 'keywords'] as const;

/**
 * Keys that mark another format: canonical (`toolcap`), Pylot
 * (`schema_version`), capability manifests and Xena (`capabilities`,
 * `surface`), ATLAS (`side_effects`, `default_timeout`, `requires_consent`,
 * `allow_parallel`), MCP (`inputSchema`), npm (`dependencies`, `scripts`).
 */
const FOREIGN_KEYS = [
  'toolcap',
  'schema_version',
  'capabilities',
  'surface',
  'side_effects',
  'default_timeout',
  'requires_consent',
  'allow_parallel',
  'inputSchema',
  'inputSchemaRef',
  'dependencies',
  'scripts',
] as const;

/** Does the value at `key` look like the Shinkai field of that name? */
function shaped(doc: Record<string, unknown>, key: (typeof STRONG_KEYS)[number] | (typeof WEAK_KEYS)[number]): boolean {
  const value = doc[key];
  switch (key) {
    case 'tool_type':
    case 'author':
      return typeof value === 'string';
    case 'parameters':
      return isPlainObject(value) && value['type'] === 'object';
    case 'configurations':
    case 'result':
      return isPlainObject(value);
    default:
      return Array.isArray(value);
  }
}

/** Below any positive claim of another dialect, above nothing. */
const NAMELESS_SCORE = 0.3;

/**
 * 0 unless the document is an object with a string `name`, no key of another
 * format, and at least one tool-only key; then it needs a second key or the
 * `metadata.json` file name. More evidence gives a higher score, below the
 * certainty of a format marker. Without a string `name`, two tool-only keys
 * still give a low score so the missing name gets reported.
 */
export function detectShinkai(value: unknown, hints: DetectHints): number {
  if (!isPlainObject(value)) return 0;
  if (FOREIGN_KEYS.some((key) => key in value)) return 0;
  const strong = STRONG_KEYS.filter((key) => shaped(value, key)).length;
  const weak = WEAK_KEYS.filter((key) => shaped(value, key)).length;
  // Metadata that lost its name is still metadata: a low score lets the
  // importer report the missing name instead of "not a manifest".
  if (typeof value['name'] !== 'string') return strong >= 2 ? NAMELESS_SCORE : 0;
  const named = /(^|\/)metadata\.json$/i.test(hints.path);
  if (strong === 0 || (strong + weak < 2 && !named)) return 0;
  return Math.min(0.95, 0.55 + 0.05 * (strong + weak) + (named ? 0.15 : 0));
}
