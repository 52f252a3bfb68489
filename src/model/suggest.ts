/**
 * "Did you mean": the known name closest to a misspelled one, by edit
 * distance (insertions, deletions, substitutions and swaps of two
 * neighbours), for UNKNOWN_FIELD hints such as `efects` -> `effects`.
 * @module
 */

/**
 * The optimal string alignment distance between two strings (Damerau-
 * Levenshtein without repeated edits of one substring).
 * @example editDistance('approvl', 'approval') // 1
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  const at = (i: number, j: number) => d[i * cols + j] ?? 0;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * cols + j] = best;
    }
  }
  return at(rows - 1, cols - 1);
}

/**
 * The candidate closest to `word` (case-insensitive), when it is close
 * enough to be a misspelling: at most one edit for short words, two from
 * five characters, three from nine. Ties go to the earlier candidate.
 * @example closestName('efects', ['effects', 'hints']) // 'effects'
 * @example closestName('colour', ['effects']) // undefined
 */
export function closestName(word: string, candidates: Iterable<string>): string | undefined {
  const w = word.toLowerCase();
  const limit = w.length >= 9 ? 3 : w.length >= 5 ? 2 : 1;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const distance = editDistance(w, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
