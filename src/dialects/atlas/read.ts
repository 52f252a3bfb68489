/**
 * Reads shared by ATLAS tools, providers, jobs and skills.
 * @module
 */
import { isPlainObject, type ObjectReader } from '../reader.js';

/**
 * The entry's source name: a non-empty string. Reports MISSING_FIELD (the
 * entry is then skipped) when it is absent or blank; a wrong type is already
 * reported by the reader as TYPE_MISMATCH.
 */
export function readName(reader: ObjectReader, what: string): string | undefined {
  const absent = !reader.has('name');
  const name = reader.string('name');
  if (name !== undefined && name.trim() !== '') return name;
  if (absent) {
    reader.context.report('MISSING_FIELD', `This ${what} has no "name"; it is skipped.`, reader.pointer, {
      hint: `Give every ${what} a unique "name".`,
    });
  } else if (name !== undefined) {
    reader.context.report('MISSING_FIELD', `This ${what} has an empty "name"; it is skipped.`, reader.at('name'), {
      hint: `Give every ${what} a unique, non-empty "name".`,
    });
  }
  return undefined;
}

/** A field that must hold a JSON object (kept as is), else TYPE_MISMATCH. */
export function readJsonObject(reader: ObjectReader, key: string): Record<string, unknown> | undefined {
  const value = reader.raw(key);
  if (value === undefined) return undefined;
  if (isPlainObject(value)) return value;
  reader.object(key); // reports the mismatch at the key's pointer
  return undefined;
}
