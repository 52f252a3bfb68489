/**
 * OpenAPI 3.0 and Swagger 2.0 schema keywords that JSON Schema 2020-12 spells
 * otherwise, rewritten on a copy (the source document is never changed).
 * @module
 */

/** The first `count` keys of `value`, copied into a new object. */
export function copyKeys(value: Record<string, unknown>, keys: readonly string[], count: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) out[keys[i]!] = value[keys[i]!];
  return out;
}

/** Does a schema object use an OpenAPI 3.0 / Swagger 2.0 keyword that 2020-12 spells otherwise? */
export function needsUpgrade(value: Record<string, unknown>): boolean {
  return (
    value['nullable'] !== undefined ||
    value['x-nullable'] !== undefined ||
    typeof value['exclusiveMinimum'] === 'boolean' ||
    typeof value['exclusiveMaximum'] === 'boolean' ||
    value['type'] === 'file'
  );
}

/** Rewrite OpenAPI 3.0 / Swagger 2.0 keywords of one (freshly copied) schema object in place. */
export function upgradeKeywords(out: Record<string, unknown>): void {
  if (out['nullable'] !== undefined) nullable(out, 'nullable');
  if (out['x-nullable'] !== undefined) nullable(out, 'x-nullable');
  if (typeof out['exclusiveMinimum'] === 'boolean') exclusiveBound(out, 'exclusiveMinimum', 'minimum');
  if (typeof out['exclusiveMaximum'] === 'boolean') exclusiveBound(out, 'exclusiveMaximum', 'maximum');
  if (out['type'] === 'file') {
    out['type'] = 'string';
    out['format'] ??= 'binary';
  }
}

function nullable(out: Record<string, unknown>, flag: string): void {
  if (out[flag] === true) addNull(out);
  delete out[flag];
}

/** Draft-04 `exclusiveMinimum: true` + `minimum: n` is 2020-12 `exclusiveMinimum: n`. */
function exclusiveBound(out: Record<string, unknown>, flag: string, bound: string): void {
  if (out[flag] === true && typeof out[bound] === 'number') {
    out[flag] = out[bound];
    delete out[bound];
  } else {
    delete out[flag];
  }
}

function addNull(out: Record<string, unknown>): void {
  const type = out['type'];
  if (typeof type === 'string') out['type'] = [type, 'null'];
  else if (Array.isArray(type) && !type.includes('null')) out['type'] = [...type, 'null'];
  const values = out['enum'];
  if (Array.isArray(values) && !values.includes(null)) out['enum'] = [...values, null];
}
