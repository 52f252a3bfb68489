/**
 * The `limits` section: overrides of the parse limits every manifest is read
 * with (bytes, nesting depth, YAML aliases). It goes to the registry.
 * @module
 */
import { Type } from '@sinclair/typebox';
import { DEFAULT_LIMITS, type ParseLimits } from '../../source/source.js';
import type { ConfigReading } from '../reading.js';

/** `limits`: overrides of DEFAULT_LIMITS. */
export const LimitsSchema = Type.Object(
  {
    maxBytes: Type.Optional(Type.Integer({ minimum: 1, default: DEFAULT_LIMITS.maxBytes })),
    maxDepth: Type.Optional(Type.Integer({ minimum: 1, default: DEFAULT_LIMITS.maxDepth })),
    maxAliasCount: Type.Optional(Type.Integer({ minimum: 0, default: DEFAULT_LIMITS.maxAliasCount })),
  },
  { additionalProperties: false },
);

/** Read `limits` (optional); limits not given keep DEFAULT_LIMITS. */
export function readLimits(reading: ConfigReading): ParseLimits {
  const limits: ParseLimits = { ...DEFAULT_LIMITS };
  const limitsReader = reading.top.object('limits');
  if (!limitsReader) return limits;
  for (const key of Object.keys(DEFAULT_LIMITS) as Array<keyof ParseLimits>) {
    const n = limitsReader.number(key, { integer: true, min: key === 'maxAliasCount' ? 0 : 1 });
    if (n !== undefined) limits[key] = n;
  }
  limitsReader.rest({ where: 'limits' });
  return limits;
}
