/**
 * What the capability dialect keeps in `tool.extensions.capability` so that
 * export gives back the exact source: the fields it has no canonical home
 * for, in the shape they had in the source, and the few spelling choices the
 * canonical model normalises away.
 * @module
 */
import { isPlainObject } from '../../source/reader.js';
import type { BundleInfo, Tool } from '../../model/schema.js';

/** The dialect id, used as the extension key. */
export const CAPABILITY = 'capability';

/**
 * Spelling choices that canonical values cannot show. Only the non-default
 * spelling is recorded; the defaults are the blog post's own spellings.
 */
export interface Syntax {
  /** `auth.scope` was a one-element list, not a plain string. */
  scopeList?: true;
  /** `sideEffects.reversible` was written as a boolean (true = full, false = none). */
  reversibleBoolean?: true;
  /** Both `inputSchemaRef` and an inline `inputSchema` were written; the inline one is kept. */
  inlineInputSchema?: true;
}

const SYNTAX_FLAGS = ['scopeList', 'reversibleBoolean', 'inlineInputSchema'] as const;

/** The extension object of one tool, read back defensively (it may have been edited). */
export interface CapabilityExtension {
  /** Unmapped source fields, nested as in the source manifest. */
  fields: Record<string, unknown>;
  syntax: Syntax;
}

/** Read `tool.extensions.capability`, ignoring anything malformed. */
export function extensionOf(tool: Tool): CapabilityExtension {
  const ext = tool.extensions?.[CAPABILITY];
  const fields = isPlainObject(ext?.['fields']) ? ext['fields'] : {};
  const rawSyntax = isPlainObject(ext?.['syntax']) ? ext['syntax'] : {};
  const syntax: Syntax = {};
  for (const flag of SYNTAX_FLAGS) if (rawSyntax[flag] === true) syntax[flag] = true;
  return { fields, syntax };
}

/** The extension object to store, or undefined when there is nothing to keep. */
export function toExtension(ext: CapabilityExtension): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  if (Object.keys(ext.fields).length > 0) out['fields'] = ext.fields;
  if (Object.keys(ext.syntax).length > 0) out['syntax'] = ext.syntax;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Put `value` at `path` inside `target`, creating objects on the way and
 * merging into objects already there.
 */
export function keepAt(target: Record<string, unknown>, path: readonly string[], value: Record<string, unknown>): void {
  let node = target;
  for (const key of path) {
    const next = node[key];
    if (isPlainObject(next)) node = next;
    else {
      const created: Record<string, unknown> = {};
      node[key] = created;
      node = created;
    }
  }
  Object.assign(node, value);
}

/**
 * Merge kept source fields into an exported manifest. Mapped values win: kept
 * fields were, by construction, the ones that were not mapped.
 */
export function mergeKept(target: Record<string, unknown>, kept: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(kept)) {
    // own properties only: a kept field named "constructor" must not find Object.prototype's
    const existing = Object.prototype.hasOwnProperty.call(target, key) ? target[key] : undefined;
    if (isPlainObject(existing) && isPlainObject(value)) mergeKept(existing, value);
    else if (existing === undefined) target[key] = structuredClone(value);
  }
  return target;
}

/** Array documents mark their bundle, so that an array of one tool is written back as an array. */
export function arrayDocumentBundle(): BundleInfo {
  return { extensions: { [CAPABILITY]: { document: 'array' } } };
}

/** Was the source document an array? */
export function isArrayDocument(bundle: BundleInfo | undefined): boolean {
  return bundle?.extensions?.[CAPABILITY]?.['document'] === 'array';
}
