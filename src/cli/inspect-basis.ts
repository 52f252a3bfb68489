/**
 * Where a tool's translated values came from, for `inspect`. A value a
 * dialect read off other words of its source (Pylot's effects from
 * `permissions`, MCP's from annotations) is derived, yet it is not an
 * assumption: the source said it, in its own words. `inspect` names those
 * words and their place, so `side effects none` on a Pylot tool can be traced
 * to its `permissions: []`.
 * @module
 */
import { fieldSuffix } from '../dialects/types.js';
import { getDialect } from '../dialects/lookup.js';
import type { Catalog } from '../registry/catalog.js';
import type { Entry } from '../registry/merge.js';
import type { Tool } from '../model/schema.js';

/** The source value shown beside a pointer, when the canonical tool keeps it verbatim. */
const VERBATIM: Readonly<Record<string, (tool: Tool) => unknown>> = { '/permissions': (tool) => tool.permissions };

/**
 * One line per source place that translated values were read off, e.g.
 * `read off permissions [] (config/tool_manifest.json:21): effects.mode, effects.sideEffects`.
 */
export function basisLines(entry: Entry<Tool>, catalog: Catalog): string[] {
  const assumed = new Set(entry.assumed ?? []);
  const translated = (entry.value.derived ?? []).filter((path) => !assumed.has(path));
  const byPlace = new Map<string, string[]>();
  for (const path of translated) {
    const origin = entry.origins[entry.fieldOrigins?.get(path) ?? 0];
    const dialect = origin ? getDialect(origin.dialect) : undefined;
    const suffix = dialect ? fieldSuffix(dialect, 'tool', path) : undefined;
    if (!origin || suffix === undefined) continue;
    const line = catalog.documents.get(origin.file)?.file.locate(`${origin.pointer}${suffix}`)?.line;
    const value = VERBATIM[suffix]?.(entry.value);
    const words = `${suffix.slice(1).replace(/\//g, '.')}${value !== undefined ? ` ${JSON.stringify(value)}` : ''}`;
    const place = `${words} (${origin.file}:${line ?? '?'})`;
    byPlace.set(place, [...(byPlace.get(place) ?? []), path]);
  }
  return [...byPlace].map(([place, paths]) => `read off ${place}: ${paths.join(', ')}`);
}
