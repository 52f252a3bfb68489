/**
 * The nesting limit on `tools/call` arguments: the HTTP API's. A call body
 * there (`{ "arguments": … }`) may nest at most `DEFAULT_LIMITS.maxDepth`
 * (64) levels, so arguments may nest one level less; the gateway takes
 * exactly the arguments the HTTP API takes. Without it, 3,000 levels were
 * stored in an approval and 5,000 overflowed the stack somewhere after.
 * The depth is measured without recursion, so measuring cannot overflow.
 * @module
 */
import { DEFAULT_LIMITS } from '../source/source.js';

/** Deepest nesting of `tools/call` arguments (the arguments object is level 1). @default 63 */
export const MAX_ARGUMENT_DEPTH = DEFAULT_LIMITS.maxDepth - 1;

/**
 * How deep `value` nests objects and arrays (a scalar is 0, `{}` is 1),
 * counted up to `limit + 1`: a deeper value is not walked further.
 * @example nestingDepth({ a: [1] }) // 2
 */
export function nestingDepth(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item.value !== 'object' || item.value === null) continue;
    const depth = item.depth + 1;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const child of Object.values(item.value)) if (typeof child === 'object' && child !== null) stack.push({ value: child, depth });
  }
  return deepest;
}
