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

/** Dialect ids. `toolcap` is the canonical format itself. */
export const DIALECT_IDS = ['toolcap', 'atlas', 'capability', 'pylot', 'xena', 'shinkai', 'openai', 'mcp', 'openapi'] as const;
export type DialectId = (typeof DIALECT_IDS)[number];

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
  export(fragment: CanonicalFragment): ExportedFile[];
  /**
   * Where each canonical field lives in this format, relative to an entry:
   * canonical dot path -> source JSON pointer suffix. Used to put diagnostics
   * found on the canonical model back on the source line.
   */
  readonly fieldMap: Readonly<Record<string, string>>;
}

/** Identity helper that keeps a dialect's literal types. */
export function defineDialect<const D extends Dialect>(dialect: D): D {
  return dialect;
}
