/**
 * The search tokenizer: identifiers and prose to index terms.
 *
 * Deliberately small: split like the evidence reader (`words`: camelCase,
 * snake_case, dots, dashes), lowercase, drop a short stopword list, and strip
 * the few suffixes that separate a tool name from the way people ask for it
 * ("lists" / "listing" / "listed" all become "list"). No dictionary, no
 * language model: the same text always gives the same terms.
 * @module
 */
import { words } from '../model/evidence.js';

/**
 * Words too common to say anything about a tool. Verbs are never stopwords:
 * "get", "list" and "create" are what read/write intent is made of.
 */
export const STOPWORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'and', 'or', 'of', 'to', 'in', 'on', 'for', 'with', 'by', 'from', 'at', 'as', 'into', 'via', 'per',
  'is', 'are', 'be', 'was', 'were', 'been', 'it', 'its', 'this', 'that', 'these', 'those', 'there', 'their',
  'i', 'me', 'my', 'we', 'our', 'you', 'your', 'please', 'can', 'could', 'would', 'should', 'will', 'shall',
  'against', 'between', 'about', 'do', 'does', 'some', 'any', 'all', 'which', 'what', 'who', 'whom', 'if', 'then', 'than', 'so', 'not', 'no',
  'us', 'them', 'they', 'he', 'she', 'him', 'her', 'his', 'hers', 'ours', 'yours', 'mine', 'myself', 'yourself', 'itself', 'ourselves', 'themselves',
]);

/**
 * Fold English contractions before splitting into words, so that "what's"
 * or "don't" leave no lone "s" or "t" behind: "n't" becomes " not", the
 * other endings ('s, 're, 've, 'll, 'd, 'm) are dropped.
 * @example foldContractions("don't delete what's left") // 'do not delete what left'
 */
export function foldContractions(text: string): string {
  return text
    .replace(/[‘’´]/g, "'")
    .replace(/\bcan't\b/gi, 'can not')
    .replace(/\bwon't\b/gi, 'will not')
    .replace(/\blet's\b/gi, 'let us')
    .replace(/n't\b/gi, ' not')
    .replace(/'d\s+(like|love|prefer)\b/gi, ' would $1')
    .replace(/'(s|re|ve|ll|d|m)\b/gi, '');
}

const VOWEL = /[aeiouy]/;

/**
 * Light suffix stripping, applied in order:
 * 1. plurals: `-ies` -> `-y` (queries -> query); `-s` dropped unless the word
 *    ends in `ss`, `us` or `is` (status, analysis) or is shorter than 4;
 * 2. `-ing` / `-ed` dropped when what is left has at least 3 letters and a
 *    vowel (listing -> list; string, need and speed stay), then a doubled
 *    final consonant is undone (stopped -> stop);
 * 3. a final `-e` dropped from words longer than 3 letters, so that
 *    create / creates / created / creating all meet at "creat".
 *
 * @example
 * stem('branches') // 'branch'
 */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length >= 4 && w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  let stripped = false;
  for (const suffix of ['ing', 'ed']) {
    if (!w.endsWith(suffix) || w.endsWith('eed')) continue;
    const rest = w.slice(0, -suffix.length);
    if (rest.length >= 3 && VOWEL.test(rest)) {
      w = rest;
      stripped = true;
    }
    break;
  }
  if (stripped && /([^aeiouylsz])\1$/.test(w)) w = w.slice(0, -1);
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/**
 * The numbers of a text as terms ("difficulty 3", "(e.g., 2020, 2025)" →
 * `3`, `2020`, `2025`), split as `tokenize` splits words ("10,000" → `10`,
 * `000` dropped: all zeros). `tokenize` leaves numbers out; the index keeps
 * those of parameter text apart, where a number is an example value, and a
 * task's numbers are matched only there.
 * @example numberTerms('year (e.g., 2020, 2025)') // ['2020', '2025']
 */
export function numberTerms(text: string): string[] {
  if (!/\d/.test(text)) return []; // most texts have no digit: no second split
  return words(text).filter((w) => /^\d+$/.test(w) && !/^0+$/.test(w));
}

/**
 * Runs of Chinese, Japanese or Korean script (Han, kana, Hangul): written
 * without spaces between words, so `words` cannot split them (it keeps
 * ASCII letters and digits only).
 */
const CJK_RUN = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+/g;
/** Any character outside 7-bit ASCII: only such a text can hold a CJK run. */
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * The runs of CJK script of a text, in order ({@link cjkTerms} turns them into terms).
 * @example cjkRuns('What are the 八字 of a boy?') // ['八字']
 */
export function cjkRuns(text: string): string[] {
  return NON_ASCII.test(text) ? (text.match(CJK_RUN) ?? []) : [];
}

/**
 * The terms of CJK text: each run as its overlapping pairs of characters
 * (a run of one character as itself), the usual way to index a script
 * with no spaces without a dictionary: "获取八字信息" holds the pair "八字"
 * a task asking for "八字" has.
 * @example cjkTerms('获取八字') // ['获取', '取八', '八字']
 */
export function cjkTerms(text: string): string[] {
  const out: string[] = [];
  for (const run of cjkRuns(text)) {
    if (run.length === 1) out.push(run);
    for (let i = 0; i + 1 < run.length; i++) out.push(run.slice(i, i + 2));
  }
  return out;
}

/**
 * Index terms of a text: contractions folded, words lowercased, stopwords,
 * single letters and bare numbers dropped (a number or a contraction
 * fragment is a rare, heavy term that matches by accident), stemmed; then
 * the pairs of characters of its CJK runs ({@link cjkTerms}).
 * Repeats are kept (term frequency matters to scoring).
 *
 * @example
 * tokenize('listCalendarEvents') // ['list', 'calendar', 'event']
 * tokenize('github.create_pull_request') // ['github', 'creat', 'pull', 'request']
 * tokenize('获取八字信息') // ['获取', '取八', '八字', '字信', '信息']
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const w of words(foldContractions(text))) {
    if (w.length < 2 || STOPWORDS.has(w) || /^\d+$/.test(w)) continue;
    out.push(stem(w));
  }
  // one at a time: a long text's pairs are too many to pass as arguments (a call's arguments live on the stack)
  if (NON_ASCII.test(text)) for (const term of cjkTerms(text)) out.push(term);
  return out;
}
