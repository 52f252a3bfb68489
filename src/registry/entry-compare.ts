/**
 * Whether two tool entries of consecutive builds certainly serialise alike,
 * decided without serialising them (the worker's encoder,
 * registry/catalog-transfer.ts, sends an unchanged entry as a reference).
 * @module
 */
import type { Tool } from '../model/schema.js';
import type { Entry } from './merge.js';

/** An entry's rest (everything but its value) as sent. */
export const restJson = (entry: Entry<Tool>): string => {
  const { value: _value, fieldOrigins, ...rest } = entry;
  return JSON.stringify(fieldOrigins ? { ...rest, fieldOrigins: [...fieldOrigins] } : rest);
};

/**
 * Whether two entries' rests certainly serialise the same, compared field by
 * field without serialising: the key, the origins (flat objects of
 * primitives) and the assumed paths. Anything else (field origins, a field
 * this does not know) answers false, and the caller compares the JSON texts.
 */
export function sameRest(a: Entry<Tool>, b: Entry<Tool>): boolean {
  if (a.key !== b.key || a.fieldOrigins !== undefined || b.fieldOrigins !== undefined) return false;
  const known = (e: Entry<Tool>) => {
    let n = 0;
    for (const field in e) {
      if (field !== 'key' && field !== 'value' && field !== 'origins' && field !== 'assumed') return -1;
      n++;
    }
    return n;
  };
  const fields = known(b);
  if (fields < 0 || fields !== known(a)) return false;
  const [x, y] = [a.origins, b.origins];
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (!sameFlat(x[i]!, y[i]!)) return false;
  const [p, q] = [a.assumed, b.assumed];
  if (p === q) return true;
  if (p === undefined || q === undefined || p.length !== q.length) return false;
  for (let i = 0; i < p.length; i++) if (p[i] !== q[i]) return false;
  return true;
}

/** Two objects with the same keys in the same order and equal primitive values. */
function sameFlat(a: object, b: object): boolean {
  if (a === b) return true;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i]) return false;
    const v = (a as Record<string, unknown>)[k];
    if ((v !== null && typeof v === 'object') || v !== (b as Record<string, unknown>)[k]) return false;
  }
  return true;
}
