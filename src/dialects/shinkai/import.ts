/**
 * Shinkai `metadata.json` into one canonical tool. The document is the tool:
 * its pointer is the root, so field pointers are the source keys.
 * @module
 */
import { joinPointer } from '../../model/diagnostics.js';
import { compact, compactRequired } from '../../model/objects.js';
import type { Tool } from '../../model/schema.js';
import { jsonType, ObjectReader } from '../../source/reader.js';
import type { ImportContext, ImportedDocument } from '../types.js';
import { buildExtension, type ItemLeftovers } from './extension.js';
import { slugify } from './names.js';
import { authFromOAuth, readOAuthList } from './oauth.js';

/** Translate one Shinkai metadata document. Never throws: problems become diagnostics. */
export function importShinkai(context: ImportContext): ImportedDocument {
  const result: ImportedDocument = { tools: [], skills: [], agents: [], jobs: [] };
  const reader = ObjectReader.of(context, context.file.value, '', 'A Shinkai metadata document');
  if (!reader) return result;
  const tool = readTool(reader);
  if (tool) result.tools.push({ value: tool, pointer: '' });
  return result;
}

/**
 * Every field is read even when the name is unusable, so one pass reports
 * all the problems of the file; the tool is dropped only at the end.
 */
function readTool(r: ObjectReader): Tool | undefined {
  const id = r.string('id');
  const title = r.string('name');
  const name = canonicalName(r, title, id);
  const leftovers: ItemLeftovers = {};
  const fields = {
    version: r.string('version'),
    description: r.string('description'),
    author: r.string('author'),
    homepage: r.string('homepage'),
    tags: r.strings('keywords'),
    implementation: compact<NonNullable<Tool['implementation']>>({ language: r.string('tool_type') }),
    license: r.string('license'),
    configSchema: readSchema(r, 'configurations'),
    inputSchema: readSchema(r, 'parameters'),
    outputSchema: readSchema(r, 'result'),
    storage: compact<NonNullable<Tool['storage']>>({
      sqlTables: readSqlItems(r, 'sqlTables', 'definition', leftovers)?.map(({ name: n, text }) => ({ name: n, definition: text })),
      sqlQueries: readSqlItems(r, 'sqlQueries', 'query', leftovers)?.map(({ name: n, text }) => ({ name: n, query: text })),
    }),
    uses: r.array('tools'),
  };
  const { auth, derived } = authFromOAuth(readOAuthList(r, leftovers));
  const extensions = buildExtension(unmappedFields(r), leftovers);
  if (name === undefined) return undefined;
  return compactRequired<Tool>({ name, id, title, ...fields, auth, derived: ['name', ...derived], extensions });
}

/**
 * Fields real Shinkai metadata carries beyond the documented table (the
 * runner and platforms a tool needs, the set it belongs to). toolcap has no
 * home for them, but they are not mistakes: kept without a warning.
 */
const KNOWN_UNMAPPED = ['runner', 'operating_system', 'tool_set'] as const;

/** Known-but-unmapped fields, then unknown ones (reported), for `extensions.shinkai`. */
/** The JSON type each known-but-unmapped field has in real Shinkai metadata. */
const UNMAPPED_TYPES: Record<(typeof KNOWN_UNMAPPED)[number], 'string' | 'array'> = { runner: 'string', operating_system: 'array', tool_set: 'string' };

function unmappedFields(r: ObjectReader): Record<string, unknown> | undefined {
  const known = KNOWN_UNMAPPED.filter((key) => r.has(key)).map((key) => [key, r.raw(key)] as const);
  for (const [key, value] of known) {
    const expected = UNMAPPED_TYPES[key];
    const ok = expected === 'array' ? Array.isArray(value) && value.every((v) => typeof v === 'string') : typeof value === expected;
    // reported, and still kept verbatim: the field has no canonical meaning to protect
    if (!ok) r.context.report('TYPE_MISMATCH', `"${key}" must be ${expected === 'array' ? 'an array of strings' : 'a string'}, not ${jsonType(value)}.`, r.at(key));
  }
  const unknown = r.rest({ where: 'the metadata' });
  if (known.length === 0) return unknown;
  return { ...Object.fromEntries(known), ...unknown };
}

/**
 * The slug of the human-readable `name`. The `id` is only a fallback (for a
 * name with no ASCII letter or digit): Shinkai ids are optional and often
 * not valid toolcap names ("local:::toolkit:::tool"), and a canonical name
 * that changed depending on whether `id` is present would break overrides.
 */
function canonicalName(r: ObjectReader, title: string | undefined, id: string | undefined): string | undefined {
  if (title === undefined) {
    // A name of the wrong type was already reported by the reader.
    if (!r.has('name'))
      r.context.report('MISSING_FIELD', 'Missing required field "name".', r.pointer, {
        hint: 'Add "name": the human-readable tool name, e.g. "Download Pages".',
      });
    return undefined;
  }
  const slug = slugify(title) || slugify(id ?? '');
  if (slug !== '') return slug;
  r.context.report('MISSING_FIELD', `"name" is "${title}", which gives no usable tool name.`, r.at('name'), {
    hint: 'Use a name with letters or digits, or add an "id" that has some.',
  });
  return undefined;
}

/**
 * A Shinkai schema table, kept verbatim (its `nullable` included): JSON
 * Schema validity is checked later by the shared rules. Shinkai wants
 * `type: "object"` at the top; anything else is worth a warning, not a loss.
 */
function readSchema(r: ObjectReader, key: string): Record<string, unknown> | undefined {
  const schema = r.object(key);
  if (!schema) return undefined;
  const type = schema.value['type'];
  if (type !== undefined && type !== 'object') {
    r.context.report('INVALID_VALUE', `"${key}.type" must be "object" in Shinkai metadata.`, schema.at('type'), {
      severity: 'warning',
      hint: `Describe ${key} as { "type": "object", "properties": { ... } }.`,
    });
  }
  return schema.value;
}

/**
 * `sqlTables` / `sqlQueries` items: `{ name, <textKey> }`. Incomplete items
 * are reported and skipped; unknown keys are kept by the item's index in the
 * returned list.
 */
function readSqlItems(
  r: ObjectReader,
  key: 'sqlTables' | 'sqlQueries',
  textKey: 'definition' | 'query',
  leftovers: ItemLeftovers,
): Array<{ name: string; text: string }> | undefined {
  const list = r.array(key);
  if (list === undefined) return undefined;
  const out: Array<{ name: string; text: string }> = [];
  list.forEach((item, i) => {
    const pointer = joinPointer(r.at(key), i);
    const itemReader = ObjectReader.of(r.context, item, pointer, `"${key}[${i}]"`);
    if (!itemReader) return;
    const name = itemReader.string('name');
    const text = itemReader.string(textKey);
    for (const [field, value] of [['name', name], [textKey, text]] as const) {
      if (value === undefined && !itemReader.has(field))
        r.context.report('MISSING_FIELD', `Missing required field "${field}" in ${key}[${i}].`, pointer, {
          hint: `Each ${key} item is { "name": ..., "${textKey}": ... }.`,
        });
    }
    const rest = itemReader.rest({ where: `${key}[${i}]` });
    if (name === undefined || text === undefined) return;
    if (rest) leftovers[`/${key}/${out.length}`] = rest;
    out.push({ name, text });
  });
  return out;
}
