/**
 * The `ranking` section: the planner's penalty weights (over
 * DEFAULT_RANK_WEIGHTS) and the task risk. It goes to the ranker (the HTTP
 * API's `/search`).
 * @module
 */
import { Type } from '@sinclair/typebox';
import { DEFAULT_RANK_WEIGHTS, type RankWeights } from '../../query/rank.js';
import type { ConfigReading } from '../reading.js';

/** The `ranking` section: weights not given keep their defaults. */
export interface RankingConfig {
  weights?: Partial<RankWeights>;
  taskRisk?: number;
}

/** `ranking`: penalty weights over DEFAULT_RANK_WEIGHTS, and the task risk. */
export const RankingSchema = Type.Object(
  {
    weights: Type.Optional(
      Type.Object(
        Object.fromEntries(Object.keys(DEFAULT_RANK_WEIGHTS).map((k) => [k, Type.Optional(Type.Number({ minimum: 0, maximum: 1000 }))])),
        { additionalProperties: false, description: 'Points per penalty, and the fit multiplier (docs/query.md).' },
      ),
    ),
    taskRisk: Type.Optional(Type.Number({ minimum: 0, maximum: 10, description: 'Multiplies the risk penalty.' })),
  },
  { additionalProperties: false },
);

/** Read `ranking` (optional). @default {} */
export function readRanking(reading: ConfigReading): RankingConfig {
  const ranking: RankingConfig = {};
  const rankingReader = reading.top.object('ranking');
  if (!rankingReader) return ranking;
  const weightsReader = rankingReader.object('weights');
  if (weightsReader) {
    const weights: Partial<RankWeights> = {};
    for (const key of Object.keys(DEFAULT_RANK_WEIGHTS) as Array<keyof RankWeights>) {
      const n = weightsReader.number(key, { min: 0, max: 1000 });
      if (n !== undefined) weights[key] = n;
    }
    weightsReader.rest({ where: `ranking.weights (known: ${Object.keys(DEFAULT_RANK_WEIGHTS).join(', ')})` });
    ranking.weights = weights;
  }
  const taskRisk = rankingReader.number('taskRisk', { min: 0, max: 10 });
  if (taskRisk !== undefined) ranking.taskRisk = taskRisk;
  rankingReader.rest({ where: 'ranking' });
  return ranking;
}
