/**
 * Source names and canonical names: the one naming rule shared by the
 * dialects whose sources name things in camelCase or PascalCase (ATLAS jobs
 * and skills, Xena ids, OpenAI functions, MCP tools), and the required-name
 * read of ATLAS and OpenAI entries.
 * @module
 */
import type { ObjectReader } from '../source/reader.js';

/**
 * A canonical lowercase name for a camelCase or PascalCase source name
 * (ATLAS jobs and skills, OpenAI functions): "DailyBriefing" -> "daily_briefing".
 * @example canonicalName('KPIReview') // 'kpi_review'
 */
export function canonicalName(source: string): string {
  return source
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

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
      field: 'name',
      hint: `Give every ${what} a unique "name".`,
    });
  } else if (name !== undefined) {
    reader.context.report('MISSING_FIELD', `This ${what} has an empty "name"; it is skipped.`, reader.at('name'), {
      hint: `Give every ${what} a unique, non-empty "name".`,
    });
  }
  return undefined;
}
