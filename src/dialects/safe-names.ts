/**
 * Names every target accepts. Canonical tool names may hold dots
 * (`notes.append`); OpenAI function names and Anthropic tool names must match
 * `^[a-zA-Z0-9_-]{1,64}$`, and MCP's tool-name guidance allows 1 to 128 of
 * letters, digits, `_`, `-` and `.`. {@link safeNames} maps a set of names
 * to names a rule accepts, reversibly and deterministically:
 *
 * - a name the rule accepts keeps itself (and is claimed first, so no
 *   mapped name can take it);
 * - every other character becomes `_` (`notes.append` -> `notes_append`);
 * - a name too long is cut and ends with `_` and 8 hex of its SHA-256
 *   (`SHORTENED`);
 * - two names that map to the same name (`notes.append`, `notes_append`):
 *   the one the rule accepts as it is, else the first in code-unit order,
 *   keeps it; the other gets the hash suffix (`COLLISION`).
 *
 * The mapping is a bijection: `originals` maps each safe name back, which is
 * how a call under the safe name reaches the real tool.
 * @module
 */
import { createHash } from 'node:crypto';

/** A target's rule for tool names. */
export interface NameRule {
  /** The target, for messages: `openai`. */
  readonly id: string;
  /** What a name must match, length included. */
  readonly pattern: RegExp;
  /** Characters the target does not allow (global): each becomes `_`. */
  readonly disallowed: RegExp;
  readonly maxLength: number;
}

/** OpenAI function names (Chat Completions, Responses, Agents SDK): `^[a-zA-Z0-9_-]{1,64}$`. */
export const OPENAI_NAME_RULE: NameRule = { id: 'openai', pattern: /^[a-zA-Z0-9_-]{1,64}$/, disallowed: /[^a-zA-Z0-9_-]/g, maxLength: 64 };

/** Anthropic tool names: the same rule as OpenAI's. */
export const ANTHROPIC_NAME_RULE: NameRule = { ...OPENAI_NAME_RULE, id: 'anthropic' };

/** MCP tool names (the specification's guidance, 2025-11-25): 1 to 128 of `A-Z a-z 0-9 _ - .`. */
export const MCP_NAME_RULE: NameRule = { id: 'mcp', pattern: /^[A-Za-z0-9_.-]{1,128}$/, disallowed: /[^A-Za-z0-9_.-]/g, maxLength: 128 };

/** Why a name changed. */
export type NameChange = 'RENAMED' | 'SHORTENED' | 'COLLISION';

/** One name that changed, and why. */
export interface NameNote {
  readonly change: NameChange;
  readonly original: string;
  readonly safe: string;
  /** COLLISION: the name that kept the plain mapped name. */
  readonly keptBy?: string;
}

/** The names a rule accepts, both ways. */
export interface NameMapping {
  /** original -> safe, for every name given. */
  readonly safe: ReadonlyMap<string, string>;
  /** safe -> original. */
  readonly originals: ReadonlyMap<string, string>;
  /** Every name that changed, in code-unit order of the originals. */
  readonly notes: readonly NameNote[];
}

/** `_` and 8 hex of the name's SHA-256: the same name always gets the same suffix. */
const suffix = (name: string) => `_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;

/** `base` cut so that it ends with `tail` within `max` characters. */
const withTail = (base: string, tail: string, max: number) => `${base.slice(0, max - tail.length)}${tail}`;

/**
 * Map `names` to names `rule` accepts (see the module comment). Duplicates
 * in `names` are one name; the order of `names` does not matter.
 * @example safeNames(['notes.append', 'notes.read'], OPENAI_NAME_RULE).safe.get('notes.append') // 'notes_append'
 */
export function safeNames(names: Iterable<string>, rule: NameRule): NameMapping {
  const all = [...new Set(names)].sort();
  const safe = new Map<string, string>();
  const originals = new Map<string, string>();
  const notes: NameNote[] = [];
  const claim = (original: string, name: string) => {
    safe.set(original, name);
    originals.set(name, original);
  };
  // names the rule accepts keep themselves, before any mapped name is placed
  for (const name of all) if (rule.pattern.test(name)) claim(name, name);
  for (const original of all) {
    if (safe.has(original)) continue;
    const replaced = original.replace(rule.disallowed, '_') || '_';
    const long = replaced.length > rule.maxLength;
    let candidate = long ? withTail(replaced, suffix(original), rule.maxLength) : replaced;
    let change: NameChange = long ? 'SHORTENED' : 'RENAMED';
    const keptBy = originals.get(candidate);
    if (keptBy !== undefined) {
      candidate = withTail(replaced, suffix(original), rule.maxLength);
      change = 'COLLISION';
      // a hash prefix shared by chance: count on until free (never seen in practice, but never ambiguous)
      for (let n = 2; originals.has(candidate); n++) candidate = withTail(replaced, `${suffix(original)}_${n}`, rule.maxLength);
    }
    claim(original, candidate);
    notes.push({ change, original, safe: candidate, ...(change === 'COLLISION' && keptBy !== undefined ? { keptBy } : {}) });
  }
  return { safe, originals, notes };
}

/**
 * One line for a changed name, for people.
 * @example describeNameNote({ change: 'RENAMED', original: 'notes.append', safe: 'notes_append' }, OPENAI_NAME_RULE)
 */
export function describeNameNote(note: NameNote, rule: NameRule): string {
  const why =
    note.change === 'COLLISION'
      ? `"${note.keptBy ?? ''}" already maps to the plain form, so a hash of the name is added`
      : note.change === 'SHORTENED'
        ? `${rule.id} names are at most ${rule.maxLength} characters: cut, with a hash of the name`
        : `${rule.id} names allow only ${rule.disallowed.source.replace('[^', '[').replace(/\/g$/, '')}`;
  return `${note.change}: "${note.original}" -> "${note.safe}" (${why})`;
}
