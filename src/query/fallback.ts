/**
 * Prefix and fuzzy matching for query terms the index has never seen, so a
 * task with a typo ("pul reqest") or a cut word ("repos", "notif") still
 * finds what partly matches. Used only for a term with no postings: a term
 * the catalog has is never second-guessed.
 *
 * The lexicon (every index term, sorted, and bucketed by length) is built
 * with the index; a lookup is a binary search for prefixes and a bounded
 * edit-distance scan of the few length buckets within reach.
 * @module
 */

/** The index's terms, arranged for prefix and fuzzy lookups. */
export interface Lexicon {
  /** Every index term, in code-unit order (binary search for prefixes). */
  readonly sorted: readonly string[];
  /** Terms without digits by length (fuzzy candidates), each with its letter mask. */
  readonly byLength: ReadonlyMap<number, { readonly terms: readonly string[]; readonly masks: Int32Array }>;
  /** The length of the longest term: no longer prefix of a query term can be an index term. */
  readonly longest: number;
}

/** How a fallback term was found. */
export type FallbackKind = 'prefix' | 'fuzzy';

/** An index term standing in for a query term the index does not have. */
export interface FallbackMatch {
  /** The index term. */
  term: string;
  kind: FallbackKind;
  /** Multiplier on the term's normal score, in (0, 1). */
  weight: number;
}

/**
 * Weights of fallback matches. A prefix match is worth `prefix` times the
 * share of the longer word the shorter covers; a fuzzy match `fuzzy1` at one
 * edit, `fuzzy2` at two (words of `fuzzy2Length` letters or more).
 */
export const FALLBACK_WEIGHTS = {
  prefix: 0.5,
  fuzzy1: 0.45,
  fuzzy2: 0.3,
  /** Shortest query term completed by prefix. */
  minPrefixLength: 3,
  /** Shortest index term a longer query term may start with. */
  minStemLength: 4,
  /** Share of a longer query term such an index term must cover (rental -> rent, not mindfulness -> mind). */
  minStemShare: 0.6,
  /** Shortest query term matched with one edit (four-letter words are too often other words: want/wait, know/now). */
  minFuzzyLength: 5,
  /** Query terms this long may be two edits away. */
  fuzzy2Length: 8,
  /** Index terms kept per query term, closest first. */
  maxMatches: 6,
} as const;

/**
 * English prefixes that negate the word they precede ("unresolved",
 * "nonempty", "disconnect", "invalid", "impossible", "irregular",
 * "illegal"): a word with one of them says the opposite of the word
 * without it, so the two are never typos of each other.
 */
export const NEGATING_PREFIXES: readonly string[] = ['un', 'non', 'dis', 'in', 'im', 'ir', 'il'];

/**
 * Is one word the other with a negating prefix ({@link NEGATING_PREFIXES})?
 * @example negates('unresolv', 'resolv') // true
 * @example negates('reqest', 'request') // false
 */
export function negates(a: string, b: string): boolean {
  const [long, short] = a.length > b.length ? [a, b] : [b, a];
  return long.endsWith(short) && NEGATING_PREFIXES.includes(long.slice(0, long.length - short.length));
}

/**
 * Arrange an index's terms for lookups.
 * @example
 * lexiconOf(['pull', 'request']).sorted // ['pull', 'request']
 */
export function lexiconOf(terms: Iterable<string>): Lexicon {
  const sorted = [...terms].sort();
  const lists = new Map<number, string[]>();
  let longest = 0;
  for (const term of sorted) {
    if (term.length > longest) longest = term.length;
    if (/\d/.test(term)) continue;
    let bucket = lists.get(term.length);
    if (!bucket) lists.set(term.length, (bucket = []));
    bucket.push(term);
  }
  const byLength = new Map([...lists].map(([len, list]) => [len, { terms: list, masks: Int32Array.from(list, letterMask) }]));
  return { sorted, byLength, longest };
}

/**
 * Which letters a word has (a-z one bit each, anything else bit 26): one
 * edit changes at most two bits, so words whose masks differ in more than
 * 2 x max bits are skipped before the edit distance is computed.
 */
function letterMask(word: string): number {
  let mask = 0;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i) - 97;
    mask |= 1 << (c >= 0 && c < 26 ? c : 26);
  }
  return mask;
}

/** Bits set in a 32-bit integer. */
function bitCount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** First position in `sorted` whose term is not below `key`. */
function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

let rows: [Int32Array, Int32Array, Int32Array] = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/**
 * Optimal-string-alignment distance (edits: insert, delete, substitute,
 * swap two neighbours), or `max + 1` as soon as it must exceed `max`.
 * @example
 * editDistance('reqest', 'request', 2) // 1
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = b.length;
  if (rows[0]!.length <= n) rows = [0, 1, 2].map(() => new Int32Array(2 * n + 2)) as [Int32Array, Int32Array, Int32Array];
  // three rows reused across calls: the one before last (for swaps), the last, the current
  let [prev2, prev, row] = rows;
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    let least = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const cb = b.charCodeAt(j - 1);
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (ca === cb ? 0 : 1));
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) d = Math.min(d, prev2[j - 2]! + 1);
      row[j] = d;
      if (d < least) least = d;
    }
    if (least > max) return max + 1;
    [prev2, prev, row] = [prev, row, prev2];
  }
  return Math.min(prev[n]!, max + 1);
}

/**
 * Index terms standing in for a query term that has no postings: index
 * terms it is a prefix of, the longest index term that is a prefix of it,
 * and terms one edit away (two for long words) unless one is the other
 * negated ({@link negates}); closest first, at most
 * `FALLBACK_WEIGHTS.maxMatches`. Terms with digits (ids, versions) get none.
 *
 * @example
 * fallbackMatches(lexiconOf(['request', 'pull']), 'reqest') // [{ term: 'request', kind: 'fuzzy', weight: 0.45 }]
 */
export function fallbackMatches(lexicon: Lexicon, term: string, has: (t: string) => boolean = () => true): FallbackMatch[] {
  const w = FALLBACK_WEIGHTS;
  if (/\d/.test(term)) return [];
  const found = new Map<string, FallbackMatch>();
  const keep = (m: FallbackMatch) => {
    const old = found.get(m.term);
    if (!old || old.weight < m.weight) found.set(m.term, m);
  };
  if (term.length >= w.minPrefixLength) {
    const { sorted } = lexicon;
    for (let i = lowerBound(sorted, term); i < sorted.length && sorted[i]!.startsWith(term); i++) {
      const t = sorted[i]!;
      if (t !== term) keep({ term: t, kind: 'prefix', weight: (w.prefix * term.length) / t.length });
    }
  }
  // from the longest index term down: a longer prefix is no index term (a long word would otherwise test each of its prefixes)
  for (let len = Math.min(term.length - 1, lexicon.longest); len >= Math.max(w.minStemLength, Math.ceil(w.minStemShare * term.length)); len--) {
    const t = term.slice(0, len);
    if (has(t)) {
      keep({ term: t, kind: 'prefix', weight: (w.prefix * len) / term.length });
      break;
    }
  }
  if (term.length >= w.minFuzzyLength) {
    const max = term.length >= w.fuzzy2Length ? 2 : 1;
    const mask = letterMask(term);
    for (let len = term.length - max; len <= term.length + max; len++) {
      const bucket = lexicon.byLength.get(len);
      if (!bucket) continue;
      for (let i = 0; i < bucket.terms.length; i++) {
        if (bitCount(mask ^ bucket.masks[i]!) > 2 * max) continue;
        const t = bucket.terms[i]!;
        const d = editDistance(term, t, max);
        // "unresolved" is two edits from "resolved", and means the opposite
        if (d >= 1 && d <= max && !negates(term, t)) keep({ term: t, kind: 'fuzzy', weight: d === 1 ? w.fuzzy1 : w.fuzzy2 });
      }
    }
  }
  return [...found.values()]
    .sort((a, b) => b.weight - a.weight || a.term.length - b.term.length || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0))
    .slice(0, w.maxMatches);
}
