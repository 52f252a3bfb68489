/**
 * The dialects toolcap knows, and detection: which one a document is in.
 * @module
 */
import { atlasDialect } from './atlas.js';
import { capabilityDialect } from './capability.js';
import { mcpDialect } from './mcp.js';
import { openaiDialect } from './openai.js';
import { openapiDialect } from './openapi.js';
import { pylotDialect } from './pylot.js';
import { shinkaiDialect } from './shinkai.js';
import { toolcapDialect } from './toolcap.js';
import { xenaDialect } from './xena.js';
import type { DetectHints, Dialect, DialectId } from './types.js';

/** Every dialect, in the order ties are broken. */
export const DIALECTS: readonly Dialect[] = [toolcapDialect, atlasDialect, capabilityDialect, pylotDialect, xenaDialect, shinkaiDialect, mcpDialect, openapiDialect, openaiDialect];

/** The dialect with this id, if toolcap has it. */
export function getDialect(id: string): Dialect | undefined {
  return DIALECTS.find((d) => d.id === id);
}

/** Ids of all dialects, for messages and `--dialect` choices. */
export function dialectIds(): DialectId[] {
  return DIALECTS.map((d) => d.id);
}

/** The dialect most sure that `value` is its format, or undefined when none is. */
export function detectDialect(value: unknown, hints: DetectHints): { dialect: Dialect; score: number } | undefined {
  let best: { dialect: Dialect; score: number } | undefined;
  for (const dialect of DIALECTS) {
    let score = 0;
    try {
      score = dialect.detect(value, hints);
    } catch {
      score = 0; // a detector must never take the loader down
    }
    if (score > 0 && (!best || score > best.score)) best = { dialect, score };
  }
  return best;
}
