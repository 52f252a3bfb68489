/**
 * Phrasal verbs: several words that are one verb ("get rid of" destroys,
 * "let the team know" sends, "look up" reads). Read as one verb wherever a
 * verb is read; a `*` matches one to six words of object ("let *
 * know" matches "let the whole team know"; up to six words).
 *
 * A table, not rules per query: each entry is a common English phrasal verb
 * with the verdict of its plain synonym (get rid of = delete, let know =
 * notify, set up = create).
 * @module
 */
import type { Verdict } from '../model/evidence.js';

export interface Phrase {
  words: readonly string[];
  says: Verdict;
}

/** The table. Verdicts follow the evidence reader's verb lists for the synonym in the comment. */
export const PHRASES: readonly Phrase[] = [
  // destroy
  ...(['get rid of', 'clean up', 'clean out', 'clear out', 'throw away', 'throw out', 'take down', 'tear down', 'wipe out', 'cross off', 'strike out', 'do away with', 'shut down', 'kill off', 'trash'] as const).map((p) => ({ words: p.split(' '), says: 'destructive' as const })),
  // write: send, notify, create, change
  ...([
    'let * know', 'give * a heads up', 'give * heads up', 'reach out to', 'drop * a line', 'drop * a note', 'send out', 'send over', 'pass on', 'pass along', 'hand over', 'loop in', 'cc',
    'set up', 'spin up', 'kick off', 'start up', 'fire up', 'boot up', 'put together', 'write up', 'write down', 'jot down', 'note down', 'add on', 'sign up', 'sign off on', 'fill in', 'fill out',
    'turn on', 'turn off', 'switch on', 'switch off', 'put * on', 'put * in', 'put * into', 'move * to', 'check in', 'check off', 'tick off', 'mark * as', 'bump up', 'bump', 'roll back', 'roll out', 'ship',
    'bring back', 'bring * back', 'log * out', 'sign * out', 'follow up', 'follow up on', 'keep track of', 'make a note of', 'take note of', 'sign in', 'log in', 'log out', 'sign out', 'opt out', 'opt in', 'give * access', 'hook up', 'wire up', 'link up', 'back up', 'save * for later', 'hold off',
  ] as const).map((p) => ({ words: p.split(' '), says: 'write' as const })),
  // read
  ...([
    'look up', 'look into', 'look at', 'look for', 'find out', 'figure out', 'check on', 'check out', 'pull up', 'dig up', 'dig into', 'go over', 'go through', 'read through', 'read up on',
    'tell me', 'tell us', 'show me', 'show us', 'give me', 'give us', 'let me know', 'let us know', 'walk me through', 'remind me what', 'keep an eye on', 'catch up on', 'see', 'what about',
  ] as const).map((p) => ({ words: p.split(' '), says: 'read' as const })),
];

/** A match of a phrase at a position: its verdict, the words it covered, and its text. */
export interface PhraseMatch {
  says: Verdict;
  /** The phrase's own words (not the object words a `*` covered). */
  words: readonly string[];
  text: string;
  length: number;
}

const byFirst = new Map<string, Phrase[]>();
for (const p of PHRASES) {
  const list = byFirst.get(p.words[0]!) ?? [];
  list.push(p);
  byFirst.set(p.words[0]!, list);
}
// longest first, so "let me know" wins over "let * know" and "follow up on" over "follow up"
for (const list of byFirst.values()) list.sort((a, b) => b.words.length - a.words.length || Number(a.words.includes('*')) - Number(b.words.includes('*')));

/** Match the phrase pattern `p` at `at`, or -1. */
function matchAt(p: Phrase, words: readonly string[], at: number): number {
  let i = at;
  for (let k = 0; k < p.words.length; k++) {
    const w = p.words[k]!;
    if (w !== '*') {
      if (words[i] !== w) return -1;
      i++;
      continue;
    }
    const next = p.words[k + 1];
    let skipped = 0;
    while (i < words.length && words[i] !== next && skipped < 6) (i++, skipped++);
    if (skipped === 0 || words[i] !== next) return -1;
  }
  return i - at;
}

/**
 * The longest phrasal verb starting at `at`, if any.
 * @example matchPhrase(['get', 'rid', 'of', 'it'], 0) // { says: 'destructive', text: 'get rid of', ... }
 */
export function matchPhrase(words: readonly string[], at: number): PhraseMatch | undefined {
  const list = byFirst.get(words[at] ?? '');
  if (!list) return undefined;
  for (const p of list) {
    const length = matchAt(p, words, at);
    if (length > 0) return { says: p.says, words: p.words.filter((w) => w !== '*'), text: words.slice(at, at + length).join(' '), length };
  }
  return undefined;
}
