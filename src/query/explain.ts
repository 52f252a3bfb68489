/**
 * Explanations: a ranking as plain JSON, for people, traces and the HTTP API.
 * The tool objects are left out; names identify candidates.
 * @module
 */
import type { Tool } from '../model/schema.js';
import { rankTools, type Intent, type Penalty, type RankOptions, type Ranking, type RankWeights } from './rank.js';
import type { SearchIndex } from './search.js';

export interface CandidateExplanation {
  name: string;
  /** Semantic fit, 0..1 (search score over the best score for the query). */
  fit: number;
  /** Query terms the tool matched. */
  matched: string[];
  /** Every penalty applied, with its reason. */
  penalties: Penalty[];
  /** fit * weights.fit minus the penalties. */
  score: number;
  /** The manifest's safer alternatives. */
  alternatives: string[];
  /** When its fit was inherited: the tool whose manifest names it as a safer alternative. */
  alternativeTo?: string;
}

export interface Explanation {
  query: string;
  intent: Intent;
  /** How sure the intent is, 0..1 (1 when the caller gave it). */
  confidence: number;
  intentEvidence: string[];
  /** The rest of the task's reading: list or item, destruction asked for or ruled out, values kept out of the terms. */
  understanding: Ranking['understanding'];
  weights: RankWeights;
  candidates: CandidateExplanation[];
}

/**
 * Rank and explain: per candidate its fit, each penalty with its reason,
 * the final score and the manifest's alternatives.
 *
 * @example
 * explainRanking('create a pull request', tools).candidates[0]
 * // { name: 'github.create_pull_request', fit: 1, matched: [...],
 * //   penalties: [{ code: 'approval', points: 10, reason: 'each call needs human approval' }, ...],
 * //   score: 85, alternatives: ['github.diff_branch', 'github.draft_pr_summary'] }
 */
export function explainRanking(query: string, tools: readonly Tool[] | SearchIndex, options: RankOptions = {}): Explanation {
  return explain(query, rankTools(query, tools, options));
}

/** A ranking already made, as plain JSON. */
export function explain(query: string, ranking: Ranking): Explanation {
  return {
    query,
    intent: ranking.intent,
    confidence: ranking.confidence,
    intentEvidence: ranking.intentEvidence,
    understanding: ranking.understanding,
    weights: ranking.weights,
    candidates: ranking.candidates.map((c) => ({
      name: c.tool.name,
      fit: c.fit,
      matched: c.matched,
      penalties: c.penalties,
      score: c.score,
      alternatives: c.alternatives,
      ...(c.alternativeTo !== undefined ? { alternativeTo: c.alternativeTo } : {}),
    })),
  };
}
