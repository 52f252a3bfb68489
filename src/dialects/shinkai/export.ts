/**
 * Canonical tools out as Shinkai `metadata.json` files, one tool folder each.
 * Only what Shinkai can say is written: canonical fields without a Shinkai
 * home (effects, approval, cost, ...) are left out.
 * @module
 */
import { declared } from '../../model/derive.js';
import { compact } from '../../model/objects.js';
import type { Tool } from '../../model/schema.js';
import type { CanonicalFragment, ExportedFile } from '../types.js';
import { readExtension, type ItemLeftovers } from './extension.js';
import { folderName } from './names.js';

/** One `<tool-folder>/metadata.json` per tool. */
export function exportShinkai(fragment: CanonicalFragment): ExportedFile[] {
  const folders = new Set<string>();
  return (fragment.tools ?? []).map((tool) => ({
    path: `${uniqueFolder(folderName(tool.name), folders)}/metadata.json`,
    format: 'json',
    value: toMetadata(tool),
  }));
}

function uniqueFolder(base: string, taken: Set<string>): string {
  let folder = base;
  for (let n = 2; taken.has(folder); n++) folder = `${base}-${n}`;
  taken.add(folder);
  return folder;
}

/** The metadata object, in the key order Shinkai's own files use. */
function toMetadata(tool: Tool): Record<string, unknown> {
  const d = declared(tool);
  const { fields, items } = readExtension(d);
  const metadata = compact<Record<string, unknown>>({
    id: d.id,
    // `name` is the slug of `title` when derived; a tool from another format may have no title.
    name: d.title ?? tool.name,
    version: d.version,
    description: d.description,
    author: d.author,
    homepage: d.homepage,
    keywords: d.tags,
    tool_type: d.implementation?.language,
    license: d.license,
    configurations: d.configSchema,
    parameters: d.inputSchema,
    result: d.outputSchema,
    sqlTables: withLeftovers(d.storage?.sqlTables, '/sqlTables', items),
    sqlQueries: withLeftovers(d.storage?.sqlQueries, '/sqlQueries', items),
    tools: d.uses,
    oauth: withLeftovers(d.auth?.oauth, '/oauth', items),
    ...fields,
  });
  return metadata ?? {};
}

/** Put unknown item keys kept on import back on their items. */
function withLeftovers<T extends object>(list: readonly T[] | undefined, prefix: string, items: ItemLeftovers): object[] | undefined {
  return list?.map((item, i) => ({ ...item, ...items[`${prefix}/${i}`] }));
}
