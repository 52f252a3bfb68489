/**
 * A learned tool as a document the loader reads: the entry sent (one tool
 * object, JSON text) wrapped in its dialect's file shape, so the dialect's
 * own importer and the catalog's rules judge it like any manifest entry;
 * and the findings on that document located back into the entry as sent.
 * @module
 */
import type { DialectId } from '../../dialects/types.js';
import type { LayerText } from '../../load/loader.js';
import type { Diagnostic } from '../../model/diagnostics.js';

/** The dialects a learned tool may be written in, and the key naming the entry's id in each. */
export const LEARNED_DIALECTS: Readonly<Partial<Record<DialectId, { idKey: string; open: string; close: string }>>> = {
  // the entry goes on a line of its own: its lines are the document's lines shifted by one
  toolcap: { idKey: 'name', open: '{"toolcap": 1, "tools": [\n', close: '\n]}\n' },
  xena: { idKey: 'id', open: '{"tools": [\n', close: '\n]}\n' },
};

/** The dialect ids a learned tool may be written in. */
export const learnedDialectIds = (): string[] => Object.keys(LEARNED_DIALECTS);

/** Where a learned document's entry is, in the wrapped document. */
const ENTRY_POINTER = '/tools/0';

/** The name a learned tool's document is shown as (its "file" in diagnostics and origins). */
export function learnedDocumentName(id: string): string {
  return `learned:${id}`;
}

/** The document of one learned tool, for the loader. */
export function learnedText(id: string, dialect: DialectId, body: string): LayerText {
  const shape = LEARNED_DIALECTS[dialect];
  if (!shape) throw new TypeError(`Learned tools are not read in the ${dialect} dialect.`);
  return { name: learnedDocumentName(id), text: `${shape.open}${body}${shape.close}`, dialect };
}

/** One finding on an upserted entry, located in the entry as sent. */
export interface LocatedFinding {
  code: string;
  severity: string;
  message: string;
  /** JSON pointer into the submitted body ('' for the entry itself); absent for a finding elsewhere. */
  pointer?: string;
  line?: number;
  column?: number;
  hint?: string;
  /** For a finding in another file (a conflict the entry causes there). */
  file?: string;
}

/**
 * The diagnostics of a check, located in the body when they are about the
 * learned document `name` (pointer below the entry, lines shifted back);
 * others keep their file and position.
 */
export function locateInBody(diagnostics: readonly Diagnostic[], name: string): LocatedFinding[] {
  return diagnostics.map((d) => {
    const base: LocatedFinding = { code: d.code, severity: d.severity, message: d.message, ...(d.hint !== undefined ? { hint: d.hint } : {}) };
    if (d.file !== name) {
      return { ...base, ...(d.file !== undefined ? { file: d.file } : {}), ...(d.pointer !== undefined ? { pointer: d.pointer } : {}), ...(d.line !== undefined ? { line: d.line } : {}), ...(d.column !== undefined ? { column: d.column } : {}) };
    }
    const p = d.pointer ?? '';
    const pointer = p === ENTRY_POINTER || p.startsWith(`${ENTRY_POINTER}/`) ? p.slice(ENTRY_POINTER.length) : '';
    // line 1 and the last line are the wrapper's: only the entry's own lines are shown
    const inBody = d.line !== undefined && d.line >= 2;
    return { ...base, pointer, ...(inBody ? { line: d.line! - 1, ...(d.column !== undefined ? { column: d.column } : {}) } : {}) };
  });
}
