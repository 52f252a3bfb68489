/**
 * What the merge says about an override file's entry that overrides nothing.
 * Pylot layers local manifests "for custom tooling or to disable risky
 * tools", so a new tool in an override file is legitimate: it is added, with
 * a note. An entry that only disables, and matches no earlier tool, disables
 * nothing: most likely a misspelt name, and the risky tool it meant stays
 * enabled. That fails open, so it is a warning.
 * @module
 */
import { diagnostic, type Diagnostic } from '../model/diagnostics.js';
import type { Tool } from '../model/schema.js';

/** Where an entry came from: file and pointer, with its line and column when known. */
interface Place {
  file: string;
  pointer: string;
}

/**
 * The OVERRIDE_UNMATCHED diagnostic for `tool`, which an override file
 * names and no earlier file or layer defines: info when it adds a tool,
 * warning when it says `enabled: false`.
 */
export function unmatchedOverride(tool: Tool, origin: Place, position: { line?: number; column?: number }): Diagnostic {
  const where = { file: origin.file, pointer: origin.pointer, ...position };
  if (tool.enabled === false) {
    return diagnostic('OVERRIDE_UNMATCHED', `The override disables "${tool.name}", but no earlier manifest defines a tool of that name: it disables nothing.`, {
      ...where,
      severity: 'warning',
      hint: 'Check the spelling against the base manifest (toolcap inspect lists the names), or delete the entry.',
    });
  }
  return diagnostic('OVERRIDE_UNMATCHED', `The override adds "${tool.name}": no earlier manifest defines a tool of that name.`, {
    ...where,
    hint: 'Fine for a site\'s own tool; if it was meant to change a base tool, check the spelling of the name.',
  });
}
