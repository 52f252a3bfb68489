/**
 * What a dialect is: one manifest format, translated into the canonical model
 * and back. Nothing after this layer knows which format a manifest came from,
 * except through provenance.
 * @module
 */
import type { Diagnostic, DiagnosticCode, Severity } from '../model/diagnostics.js';
import type { Agent, BundleInfo, Job, Skill, Tool } from '../model/schema.js';
import type { ImportContext } from '../source/context.js';

export type { ImportContext };

/**
 * Dialect ids, in the order detection breaks ties: the one list of dialects
 * (src/dialects/lookup.ts builds `DIALECTS` from it, and its types make a
 * missing or extra dialect a compile error). `toolcap` is the canonical
 * format itself.
 */
export const DIALECT_IDS = ['toolcap', 'atlas', 'capability', 'pylot', 'xena', 'shinkai', 'mcp', 'openapi', 'openai'] as const;
export type DialectId = (typeof DIALECT_IDS)[number];

/** The kinds of entry a document holds. */
export type EntryKind = 'tool' | 'skill' | 'agent' | 'job';

/**
 * Where canonical fields live in one kind of entry of a format: canonical dot
 * path (`effects.risk`) -> JSON pointer suffix relative to the entry
 * (`/riskLevel`). A group (`effects`) may stand for its fields.
 */
export type FieldMap = Readonly<Record<string, string>>;

/**
 * A dialect's field maps, one per kind of entry it reads. Every format has
 * tools; a kind the format does not have has no map.
 */
export type FieldMaps = { readonly tool: FieldMap } & { readonly [K in Exclude<EntryKind, 'tool'>]?: FieldMap };

/** An entry (tool, skill, agent, job) with where it stands in its source. */
export interface Located<T> {
  value: T;
  /** JSON pointer of the entry in its source document. */
  pointer: string;
}

/** What one source document holds, in canonical form. */
export interface ImportedDocument {
  bundle?: BundleInfo;
  tools: Array<Located<Tool>>;
  skills: Array<Located<Skill>>;
  agents: Array<Located<Agent>>;
  jobs: Array<Located<Job>>;
}

/** A canonical fragment to write out. */
export interface CanonicalFragment {
  bundle?: BundleInfo;
  tools?: readonly Tool[];
  skills?: readonly Skill[];
  agents?: readonly Agent[];
  jobs?: readonly Job[];
}

/** One file an exporter produces; `path` is relative and uses `/`. */
export interface ExportedFile {
  path: string;
  format: 'json' | 'yaml';
  value: unknown;
  /**
   * When the target's name rule changed names (safe-names.ts): safe name ->
   * canonical name, for every tool written, so results and calls map back.
   */
  names?: Readonly<Record<string, string>>;
  /** One line per changed name, for people (`RENAMED: "notes.append" -> "notes_append" (...)`). */
  nameNotes?: readonly string[];
}

/** How an exporter writes its files. */
export interface ExportOptions {
  /**
   * The whole export as one file where the format would otherwise cut it
   * into pages (the MCP format's {@link ExportedFile} pages): for standard
   * output, which is one stream however large.
   */
  readonly oneFile?: boolean;
}

/** Hints for detection besides the value itself. */
export interface DetectHints {
  /** The file path, with `/` separators. */
  path: string;
}

/** One manifest format. */
export interface Dialect {
  readonly id: DialectId;
  readonly title: string;
  /**
   * How sure this dialect is that `value` is in its format: 0 = not at all,
   * 1 = certain. The loader picks the highest score above 0.
   */
  detect(value: unknown, hints: DetectHints): number;
  /** Translate a parsed document. Never throws on bad input: reports diagnostics. */
  import(context: ImportContext): ImportedDocument;
  /** Write canonical entries back in this format. */
  export(fragment: CanonicalFragment, options?: ExportOptions): ExportedFile[];
  /**
   * Where each canonical field lives in this format, per kind of entry. Used
   * to put findings about the canonical model back on the source line (see
   * {@link fieldSuffix}).
   */
  readonly fieldMaps: FieldMaps;
}

/**
 * The source pointer suffix of a canonical field in an entry of this kind:
 * the field's own entry, else its group's (`effects` for `effects.risk`);
 * undefined when the format has no place for it.
 * @example
 * fieldSuffix(xenaDialect, 'agent', 'skills') // '/skillIds'
 */
export function fieldSuffix(dialect: Pick<Dialect, 'fieldMaps'>, kind: EntryKind, path: string): string | undefined {
  const map = dialect.fieldMaps[kind];
  if (map === undefined) return undefined;
  // own keys only: a path named like an Object.prototype member is not in the map
  if (Object.hasOwn(map, path)) return map[path];
  const dot = path.indexOf('.');
  if (dot < 0) return undefined; // the path is its own group, not in the map
  const group = path.slice(0, dot);
  return Object.hasOwn(map, group) ? map[group] : undefined;
}

/**
 * Define a dialect, keeping its literal types.
 * @example
 * export const myDialect = defineDialect({ id: 'openai', title: '…', detect, import: read, export: write, fieldMaps: { tool: { name: '/name' } } });
 */
export function defineDialect<const D extends Dialect>(definition: D): D {
  return definition;
}
