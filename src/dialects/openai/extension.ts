/**
 * What the openai dialect keeps in `tool.extensions.openai` and
 * `bundle.extensions.openai` so that export gives back the exact source:
 * `strict` (no canonical home), unknown keys where they stood, and the
 * spelling choices the canonical model normalises away.
 * @module
 */
import type { BundleInfo, Tool } from '../../model/schema.js';
import { isPlainObject } from '../../source/reader.js';

/** The dialect id, used as the extension key. */
export const OPENAI = 'openai';

/**
 * How an entry was written. Absent means the Chat Completions form
 * `{type: "function", function: {...}}`, which export writes by default.
 * `bare` is a function object on its own (the legacy `functions` list, BFCL);
 * `flat` is the Responses API form `{type: "function", name, ...}`.
 */
export type Shape = 'bare' | 'flat';

/** `tool.extensions.openai`, read back defensively (it may have been edited). */
export interface ToolExtension {
  /** OpenAI's `strict` (schema-constrained arguments). */
  strict?: boolean;
  shape?: Shape;
  /** Unknown keys of the function object, verbatim. */
  fields?: Record<string, unknown>;
  /** Unknown keys beside `type` and `function` in the wrapped form, verbatim. */
  wrapper?: Record<string, unknown>;
  /** The output schema was written as BFCL's `response` key. */
  response?: true;
  /**
   * Original `type` spellings repaired on import: JSON pointer relative to
   * the function object (e.g. "/parameters/properties/n/type") -> spelling.
   */
  repairs?: Record<string, unknown>;
  /**
   * The source named the function in a way OpenAI's API rejects
   * (`math.factorial`, as BFCL does): export writes that spelling back
   * (the source's own choice) with a warning, instead of a safe name.
   */
  sourceName?: true;
}

/** A non-function tool (e.g. `{type: "code_interpreter"}`) and its index in the source array. */
export interface KeptEntry {
  index: number;
  value: unknown;
}

/** `bundle.extensions.openai`: how the document as a whole was written. */
export interface DocumentExtension {
  /** The document was one entry, not an array. */
  single?: true;
  /** Entries that are not function tools, kept verbatim at their index. */
  others?: KeptEntry[];
}

const record = (v: unknown): Record<string, unknown> | undefined => (isPlainObject(v) ? v : undefined);

/** Read `tool.extensions.openai`, ignoring anything malformed. */
export function toolExtensionOf(tool: Tool): ToolExtension {
  const ext = tool.extensions?.[OPENAI] ?? {};
  const out: ToolExtension = {};
  if (typeof ext['strict'] === 'boolean') out.strict = ext['strict'];
  if (ext['shape'] === 'bare' || ext['shape'] === 'flat') out.shape = ext['shape'];
  const fields = record(ext['fields']);
  if (fields) out.fields = fields;
  const wrapper = record(ext['wrapper']);
  if (wrapper) out.wrapper = wrapper;
  if (ext['response'] === true) out.response = true;
  const repairs = record(ext['repairs']);
  if (repairs) out.repairs = repairs;
  if (ext['sourceName'] === true) out.sourceName = true;
  return out;
}

/** Read `bundle.extensions.openai`, ignoring anything malformed. */
export function documentExtensionOf(bundle: BundleInfo | undefined): DocumentExtension {
  const ext = bundle?.extensions?.[OPENAI] ?? {};
  const out: DocumentExtension = {};
  if (ext['single'] === true) out.single = true;
  const others = Array.isArray(ext['others'])
    ? ext['others'].filter((o): o is KeptEntry => isPlainObject(o) && Number.isInteger(o['index']) && 'value' in o)
    : [];
  if (others.length > 0) out.others = others;
  return out;
}

/** The extension as a plain object for `extensions.openai`, or undefined when empty. */
export function nonEmpty<T extends object>(ext: T): (T & Record<string, unknown>) | undefined {
  return Object.keys(ext).length > 0 ? (ext as T & Record<string, unknown>) : undefined;
}
