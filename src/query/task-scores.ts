/**
 * A task's raw scores, before the ranker selects from them: its content
 * words (and their stand-ins, ./expand.ts), its weak words at
 * WEAK_TERM_WEIGHT, each sentence's best lifted in a task of several, and a
 * matched tool's alternatives inheriting a share of its score. Every score
 * array comes from the index's pool (./score-buffers.ts): a query allocates
 * nothing in proportion to the catalog.
 * @module
 */
import { acquireScores, impactsOf, releaseScores } from './score-buffers.js';
import { scoreInto, type Expansion, type SearchIndex } from './search.js';
import { tokenize } from './tokenize.js';
import type { Sentence, Understanding } from './understand.js';

/** How much a generic verb ("show", "get") or an entity's kind counts, against a content term's 1. */
export const WEAK_TERM_WEIGHT = 0.35;
/**
 * The share of a tool's fit its manifest's `alternatives` inherit: the
 * author says they are safer ways to the same end, so they compete on
 * their own (lower) penalties even when the task's words name the riskier tool.
 */
export const ALTERNATIVE_FIT = 0.9;
/** How much a task's number counts where a tool's parameter text gives it as an example value, against a content term's 1. */
export const VALUE_WEIGHT = 1;
/** In a task of several sentences, the share of the task's best score the best tool of each sentence gets. */
export const STEP_FIT = 0.75;
/**
 * In a task of at least STEP_BEST_MIN_SENTENCES asking sentences, the best
 * tool of each sentence also gets this share of the task's best score on top
 * of its own: of two near-equal scores, the one that is some step's best is
 * the tool a step asks for, the other only gathers words of several steps.
 */
export const STEP_BEST_BONUS = 0.075;
/**
 * Asking sentences a task needs for STEP_BEST_BONUS: with two, one is often
 * context for a single request ("I'm starting a home gym. Can you find me
 * weights?"); with three or more, the task asks for several tools.
 */
export const STEP_BEST_MIN_SENTENCES = 3;

/**
 * A task of several sentences asks for several tools, and a long sentence's
 * terms swamp a short one's in one sum: each sentence is scored on its own
 * (its content words, then its values, as the whole task's are),
 * and a tool gets STEP_FIT of the task's best score times its share of its
 * sentence's best, when that is more than its own (each step's best tool
 * reaches the top 10). In a task of STEP_BEST_MIN_SENTENCES or more, each
 * sentence's best then gets STEP_BEST_BONUS of the task's best on top: a
 * tool that gathers words of several steps no longer outranks, on a near
 * tie, the tool one step asks for.
 */
function liftStepBests(index: SearchIndex, sentences: readonly Sentence[], scores: Float64Array, touched: number[], own: Map<number, number>): void {
  let best = 0;
  for (const doc of touched) if (scores[doc]! > best) best = scores[doc]!;
  if (best === 0) return;
  const stepBests = new Set<number>();
  for (const sentence of sentences) {
    const stepScores = acquireScores(index);
    const stepTouched: number[] = [];
    scoreInto(index, sentence.content, {}, stepScores, stepTouched);
    if (sentence.values.length > 0) addValues(index, sentence.values, stepScores);
    let top = 0;
    for (const doc of stepTouched) if (stepScores[doc]! > top) top = stepScores[doc]!;
    if (top > 0) {
      for (const doc of stepTouched) {
        if (stepScores[doc] === top) stepBests.add(doc);
        const share = (STEP_FIT * best * stepScores[doc]!) / top;
        if (share <= scores[doc]!) continue;
        if (scores[doc] === 0) touched.push(doc);
        if (!own.has(doc)) own.set(doc, scores[doc]!);
        scores[doc] = share;
      }
    }
    releaseScores(index, stepScores, stepTouched);
  }
  if (sentences.length >= STEP_BEST_MIN_SENTENCES) {
    for (const doc of stepBests) {
      if (!own.has(doc)) own.set(doc, scores[doc]!);
      scores[doc]! += STEP_BEST_BONUS * best;
    }
  }
}

const byName = new WeakMap<SearchIndex, Map<string, number>>();

/**
 * Give each matched tool's `alternatives` ALTERNATIVE_FIT of its score when
 * that is more than their own (kept in `own`); returns which documents
 * inherited, from whom.
 */
export function inheritAlternatives(index: SearchIndex, scores: Float64Array, touched: number[], own: Map<number, number>): Map<number, number> {
  const inherited = new Map<number, number>();
  let names = byName.get(index);
  if (names === undefined) {
    names = new Map(index.tools.some((t) => t.alternatives?.length) ? index.tools.map((t, i) => [t.name, i]) : []);
    byName.set(index, names);
  }
  if (names.size === 0) return inherited; // no tool names an alternative
  for (const doc of [...touched]) {
    const alternatives = index.tools[doc]!.alternatives;
    if (!alternatives?.length) continue;
    for (const name of alternatives) {
      const alt = names.get(name);
      const share = ALTERNATIVE_FIT * scores[doc]!;
      if (alt === undefined || alt === doc || scores[alt]! >= share) continue;
      if (scores[alt] === 0) touched.push(alt);
      if (!own.has(alt)) own.set(alt, scores[alt]!);
      scores[alt] = share;
      inherited.set(alt, doc);
    }
  }
  return inherited;
}

/** A group of a task's weak words: scored together; `adds` when they may bring a tool no content word matched. */
interface WeakGroup {
  words: string[];
  adds: boolean;
}

/**
 * The task's weak words in two groups: those in at most a tenth of the
 * tools, which may add tools, then the common ones ("get" in a big
 * catalog), which only order what the content matched.
 */
function weakGroups(index: SearchIndex, weak: string, contentMatched: boolean): WeakGroup[] {
  if (weak === '') return [];
  const most = index.tools.length / 10;
  // partition the words, not their stems: scoring stems what it is given, and a stem is not always a fixed point
  const isCommon = (word: string) => contentMatched && tokenize(word).some((t) => (index.postings.get(t)?.docs.length ?? 0) > most);
  const words = weak.split(/\s+/).filter((w) => w !== '');
  const common = words.filter(isCommon);
  return [
    { words: words.filter((w) => !common.includes(w)), adds: true },
    { words: common, adds: false },
  ].filter((g) => g.words.length > 0);
}

/**
 * A task's numbers (`Understanding.values`) add VALUE_WEIGHT of their BM25F
 * contribution to the tools already matched whose parameter text gives them
 * as example values (the only place the index holds numbers); a number alone
 * brings no tool. Returns the numbers that matched a tool.
 */
function addValues(index: SearchIndex, values: readonly string[], scores: Float64Array): string[] {
  const used: string[] = [];
  for (const term of values) {
    const docs = index.postings.get(term)?.docs;
    if (!docs) continue;
    const impacts = impactsOf(index, term)!;
    for (let j = 0; j < docs.length; j++) {
      const doc = docs[j]!;
      if (scores[doc] !== 0) scores[doc]! += VALUE_WEIGHT * impacts[j]!;
    }
    used.push(term);
  }
  return used;
}

/** A task's scores: every document in `touched` has one in `scores` (from the pool: give it back with releaseScores). */
export interface TaskScores {
  scores: Float64Array;
  touched: number[];
  terms: string[];
  expansions: Expansion[];
  /**
   * A document's score from the task's words alone, where a step's lift or
   * bonus (or, after inheritAlternatives, a named alternative's share) raised
   * it: of two equal scores, the better match to the task as a whole.
   */
  own: Map<number, number>;
}

/**
 * Score a task the long way, every posting of every term: its content words,
 * their stand-ins, its weak words (WEAK_TERM_WEIGHT), each sentence's best
 * lifted, and alternatives inheriting their namer's score. Score arrays come
 * from a per-index pool (give them back with releaseScores).
 */
export function scoreTask(index: SearchIndex, u: Understanding): TaskScores {
  const scores = acquireScores(index);
  const touched: number[] = [];
  const content = scoreInto(index, u.content, {}, scores, touched);
  let terms = content.terms;
  const expansions = [...content.expansions];
  for (const { words, adds } of weakGroups(index, u.weak, touched.length > 0)) {
    const weakScores = acquireScores(index);
    const weakTouched: number[] = [];
    const weak = scoreInto(index, words.join(' '), { vocabulary: false, fallback: false }, weakScores, weakTouched); // generic words: no stand-ins
    for (const doc of weakTouched) {
      if (scores[doc] === 0) {
        if (!adds) continue;
        touched.push(doc);
      }
      scores[doc]! += WEAK_TERM_WEIGHT * weakScores[doc]!;
    }
    releaseScores(index, weakScores, weakTouched);
    terms = [...terms, ...weak.terms.filter((t) => !terms.includes(t))];
    expansions.push(...weak.expansions);
  }
  if (u.values.length > 0) terms = [...terms, ...addValues(index, u.values, scores)];
  const own = new Map<number, number>();
  if (u.sentences.length > 1) liftStepBests(index, u.sentences, scores, touched, own);
  return { scores, touched, terms, expansions, own };
}
