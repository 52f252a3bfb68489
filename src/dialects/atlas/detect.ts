/**
 * Detection: is a document an ATLAS manifest, and of which kind? ATLAS files
 * are JSON arrays of objects; the keys of the entries and the file's folder
 * tell them apart from other arrays of named things.
 * @module
 */
import { isPlainObject } from '../../source/reader.js';
import type { DetectHints } from '../types.js';
import { kindFromPath, type AtlasFileKind } from './layout.js';

/** Keys only ATLAS tool entries carry (OpenAI-style functions lack them). */
const TOOL_MARKERS = ['side_effects', 'default_timeout', 'allow_parallel', 'requires_consent', 'idempotency_key', 'providers', 'auth'];
const JOB_MARKERS = ['required_skills', 'task_graph', 'acceptance_criteria', 'escalation_policy'];
const SKILL_MARKERS = ['instruction_prompt', 'required_capabilities', 'safety_notes'];

/** Share of entries carrying at least one of `keys`. */
function share(entries: ReadonlyArray<Record<string, unknown>>, keys: readonly string[]): number {
  if (entries.length === 0) return 0;
  // a count, not a filtered copy: detection runs on every file, and a catalog has 10,000 entries
  let marked = 0;
  for (const e of entries) {
    for (const k of keys) {
      if (k in e) {
        marked++;
        break;
      }
    }
  }
  return marked / entries.length;
}

/** The kind the entries' keys suggest, or undefined when they suggest none. */
export function kindFromShape(entries: readonly unknown[]): AtlasFileKind | undefined {
  const objects = entries.filter(isPlainObject);
  const scores: Array<[AtlasFileKind, number]> = [
    ['tools', share(objects, TOOL_MARKERS)],
    ['jobs', share(objects, JOB_MARKERS)],
    ['skills', share(objects, SKILL_MARKERS)],
  ];
  const [kind, score] = scores.reduce((best, next) => (next[1] > best[1] ? next : best));
  return score > 0 ? kind : undefined;
}

/**
 * How sure we are that `value` is an ATLAS manifest (0..1). Never throws.
 * A bare array of OpenAI-style `{name, description, parameters}` functions
 * outside a `functions.json` scores low: that shape is not ours alone.
 */
export function detectAtlas(value: unknown, hints: DetectHints): number {
  if (!Array.isArray(value)) return 0;
  // A stray non-object entry is a mistake to report, not a different format.
  const entries = value.filter(isPlainObject);
  if (entries.length < value.length / 2) return 0;
  // Xena registry entries carry an id and a surface contract.
  if (entries.some((e) => 'id' in e && 'surface' in e)) return 0;
  const pathKind = kindFromPath(hints.path);
  if (entries.length === 0) return pathKind ? 0.6 : 0;
  const named = entries.filter((e) => typeof e['name'] === 'string');
  if (named.length < entries.length / 2) return 0;

  const shapeKind = kindFromShape(entries);
  const markers = shapeKind === 'tools' ? TOOL_MARKERS : shapeKind === 'jobs' ? JOB_MARKERS : SKILL_MARKERS;
  const marked = shapeKind ? share(entries, markers) : 0;
  if (marked >= 0.5) return pathKind === shapeKind ? 0.95 : 0.85;
  const openAiShaped = share(named, ['parameters']) >= 0.5;
  if (pathKind === 'tools') return openAiShaped ? 0.8 : marked > 0 ? 0.7 : 0;
  // ATLAS's capitalised Jobs/ and Skills/ folders are telling on their own.
  if (pathKind !== undefined) return marked > 0 ? 0.7 : 0.6;
  return openAiShaped ? 0.3 : 0;
}
