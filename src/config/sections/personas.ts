/**
 * The `personas` section: folders whose tools are scoped to one persona,
 * written as a map (persona → folder) or a list of `{ persona, path }`. It
 * goes to the registry (as persona layers, through `configLayers`).
 * @module
 */
import { Type } from '@sinclair/typebox';
import { joinPointer, type Location } from '../../model/diagnostics.js';
import { ObjectReader, isPlainObject, jsonType } from '../../source/reader.js';
import { at } from '../../source/source.js';
import { PathString, type ConfigReading } from '../reading.js';

/** A persona name: letters, digits, `_`, `.`, `-`, starting with a letter or digit. */
export const PERSONA_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]*$';
/** {@link PERSONA_PATTERN} as a RegExp. */
export const PERSONA_NAME = new RegExp(PERSONA_PATTERN);

/** A folder whose tools are scoped to one persona. */
export interface PersonaFolder {
  persona: string;
  /** Absolute path of the folder. */
  path: string;
  location: Location;
}

/** `personas`: a map of persona to folder, or a list of `{ persona, path }`. */
export const PersonasSchema = Type.Union(
  [
    Type.Unsafe<Record<string, string>>({
      type: 'object',
      propertyNames: { pattern: PERSONA_PATTERN },
      additionalProperties: { type: 'string', minLength: 1 },
      description: 'Persona name -> folder, relative to the config file.',
    }),
    Type.Array(
      Type.Object({ persona: Type.String({ pattern: PERSONA_PATTERN }), path: PathString('The persona folder, relative to the config file.') }, { additionalProperties: false }),
    ),
  ],
  { description: 'Folders whose tools are scoped to one persona.' },
);

/** Read `personas` (optional): each persona once, each path an existing folder. @default [] */
export function readPersonas(reading: ConfigReading): PersonaFolder[] {
  const { top, context, file, report } = reading;
  const personas: PersonaFolder[] = [];
  const addPersona = (persona: unknown, personaPointer: string, rawPath: unknown, pathPointer: string) => {
    if (typeof persona !== 'string' || !PERSONA_NAME.test(persona)) {
      report(typeof persona === 'string' ? 'INVALID_VALUE' : 'TYPE_MISMATCH', `A persona must be a name of letters, digits, "_", "." or "-", not ${JSON.stringify(persona) ?? 'nothing'}.`, personaPointer, {
        hint: 'Name the persona as agents and jobs refer to it, e.g. atlas.',
      });
      return;
    }
    const path = reading.pathString(rawPath, pathPointer, `folder of persona "${persona}"`);
    if (path === undefined) return;
    const kind = reading.exists(path, pathPointer, `folder of persona "${persona}"`);
    if (kind === 'file') {
      report('INVALID_VALUE', `The path of persona "${persona}" is a file; a persona's tools live in a folder.`, pathPointer, { hint: 'Point at the folder holding the persona\'s manifests.' });
    } else if (kind === 'folder') {
      if (personas.some((p) => p.persona === persona)) {
        report('DUPLICATE_ENTRY', `The persona "${persona}" is named twice.`, personaPointer, { hint: 'Name each persona once.' });
      } else personas.push({ persona, path, location: at(file, pathPointer) });
    }
  };
  const rawPersonas = top.raw('personas');
  if (Array.isArray(rawPersonas)) {
    rawPersonas.forEach((item, i) => {
      const pointer = joinPointer(top.at('personas'), i);
      const entry = ObjectReader.of(context, item, pointer, 'A persona entry');
      if (!entry) return;
      entry.consume('persona', 'path');
      for (const key of ['persona', 'path']) {
        if (!entry.has(key)) report('MISSING_FIELD', `A persona entry needs "${key}".`, pointer, { hint: 'Write { persona: atlas, path: personas/atlas/ }.' });
      }
      if (entry.has('persona') && entry.has('path')) addPersona(entry.raw('persona'), entry.at('persona'), entry.raw('path'), entry.at('path'));
      entry.rest({ where: 'a persona entry' });
    });
  } else if (isPlainObject(rawPersonas)) {
    for (const [persona, rawPath] of Object.entries(rawPersonas)) {
      const pointer = joinPointer(top.at('personas'), persona);
      addPersona(persona, pointer, rawPath, pointer);
    }
  } else if (rawPersonas !== undefined) {
    report('TYPE_MISMATCH', `"personas" must be a map of persona to folder, or a list of { persona, path }, not ${jsonType(rawPersonas)}.`, top.at('personas'), {
      hint: 'Write personas: { atlas: personas/atlas/ }.',
    });
  }
  return personas;
}
