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
import { DIALECT_IDS, type DetectHints, type Dialect, type DialectId } from './types.js';

/** Each dialect under its id. The type makes a missing, extra or mislabelled dialect a compile error. */
const BY_ID: { readonly [Id in DialectId]: Dialect & { readonly id: Id } } = {
  toolcap: toolcapDialect,
  atlas: atlasDialect,
  capability: capabilityDialect,
  pylot: pylotDialect,
  xena: xenaDialect,
  shinkai: shinkaiDialect,
  mcp: mcpDialect,
  openapi: openapiDialect,
  openai: openaiDialect,
};

/** Every dialect, in the order ties are broken (the order of `DIALECT_IDS`). */
export const DIALECTS: readonly Dialect[] = DIALECT_IDS.map((id) => BY_ID[id]);

/** The dialect with this id, if toolcap has it. */
export function getDialect(id: string): Dialect | undefined {
  return DIALECTS.find((d) => d.id === id);
}

/** Ids of all dialects, for messages and `--dialect` choices. */
export function dialectIds(): DialectId[] {
  return [...DIALECT_IDS];
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
