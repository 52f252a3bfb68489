/**
 * Reads shared by ATLAS tools, providers, jobs and skills.
 * @module
 */
import { isPlainObject, type ObjectReader } from '../../source/reader.js';

export { readName } from '../names.js';

/** A field that must hold a JSON object (kept as is), else TYPE_MISMATCH. */
export function readJsonObject(reader: ObjectReader, key: string): Record<string, unknown> | undefined {
  const value = reader.raw(key);
  if (value === undefined) return undefined;
  if (isPlainObject(value)) return value;
  reader.object(key); // reports the mismatch at the key's pointer
  return undefined;
}
