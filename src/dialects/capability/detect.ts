/**
 * Recognising capability manifests by shape. The format has no version key,
 * so detection rests on its one distinctive trait: `capabilities` is an
 * object of decision metadata (Xena's `capabilities` is a list of names), or
 * the pair `summary` + `inputSchemaRef`.
 * @module
 */
import { isPlainObject } from '../../source/reader.js';
import type { DetectHints } from '../types.js';

/** Keys of `capabilities` that only this format nests there. */
const CAPABILITY_GROUPS = ['mode', 'sideEffects', 'auth', 'reliability', 'cost', 'latency'] as const;

/**
 * How sure we are that `value` is a capability manifest (one object or an
 * array of them). Schema files next to manifests (`schemas/*.json`) have
 * neither trait and score 0. Manifest file names follow no fixed
 * convention, so the path hint is not used.
 */
export function detectCapability(value: unknown, _hints: DetectHints): number {
  if (isPlainObject(value)) return scoreEntry(value);
  if (!Array.isArray(value)) return 0;
  let best = 0;
  // A stray non-object item does not make the list another format; import reports it.
  for (const item of value) if (isPlainObject(item)) best = Math.max(best, scoreEntry(item));
  return best;
}

function scoreEntry(entry: Record<string, unknown>): number {
  if ('toolcap' in entry) return 0;
  const caps = entry['capabilities'];
  if (isPlainObject(caps) && CAPABILITY_GROUPS.some((k) => k in caps)) {
    if ('name' in entry) return 0.9;
    // A manifest that lost its name is still one; import reports it.
    if ('summary' in entry || 'inputSchemaRef' in entry) return 0.7;
  }
  return 'summary' in entry && 'inputSchemaRef' in entry ? 0.8 : 0;
}
