/**
 * One MCP `Tool` (an item of a `tools/list` result) to a canonical tool and
 * back.
 *
 * What has no canonical home is kept in `extensions.mcp`:
 * `fields` holds the tool's leftovers in MCP's own shape (`icons`,
 * `execution`, unknown fields, `null` values, annotation leftovers), and
 * `titleIn: "annotations"` records a title written only as
 * `annotations.title`. Export lays the mapped fields over `fields`.
 * @module
 */
import { declared } from '../../model/derive.js';
import { compact, compactRequired } from '../../model/objects.js';
import type { JsonSchema, Tool } from '../../model/schema.js';
import { isPlainObject, ObjectReader } from '../../source/reader.js';
import type { ImportContext } from '../types.js';
import { inferEffects, mcpAnnotationsOf, readAnnotations, type AnnotationFields } from './annotations.js';
import { extensionOf, keep, MCP, objectAt, overlay, withoutNulls, type JsonObject } from './base.js';
import { mcpNameFor, readName } from './names.js';

/** Optional tool fields whose `null` is read as absent (see {@link withoutNulls}). */
const NULLABLE = ['title', 'description', 'outputSchema', 'annotations', '_meta', 'icons', 'execution'] as const;

/** The `extensions.mcp` record of a tool. */
interface ToolExtension {
  fields?: JsonObject;
  titleIn?: 'annotations';
}

/** `inputSchema`, which MCP requires of every tool. */
function readInputSchema(reader: ObjectReader): JsonObject | undefined {
  if (reader.has('inputSchema')) return reader.object('inputSchema')?.value;
  reader.context.report('MISSING_FIELD', 'An MCP tool has no "inputSchema".', reader.pointer, {
    field: 'inputSchema',
    hint: 'MCP requires one; write { "type": "object" } for a tool without arguments.',
  });
  return undefined;
}

/**
 * The canonical title and where it came from: a top-level `title` wins
 * (MCP says it takes precedence); `annotations.title` alone stands in for
 * it. When both are written, the annotation's is kept as a leftover.
 */
function pickTitle(title: string | undefined, annotations: AnnotationFields) {
  if (title !== undefined || annotations.title === undefined) {
    const leftovers =
      annotations.title === undefined ? annotations.leftovers : { ...annotations.leftovers, title: annotations.title };
    return { title, titleIn: undefined, annotationLeftovers: leftovers };
  }
  return { title: annotations.title, titleIn: 'annotations' as const, annotationLeftovers: annotations.leftovers };
}

/** Translate one item of `tools`. Undefined (reported) when it is not an object or has no usable name. */
export function importTool(context: ImportContext, value: unknown, pointer: string): Tool | undefined {
  const tool = ObjectReader.of(context, value, pointer, 'An MCP tool');
  if (!tool) return undefined;
  const { reader: r, nulls } = withoutNulls(tool, NULLABLE);
  const names = readName(r);
  if (!names) return undefined;
  const topTitle = r.string('title');
  const description = r.string('description');
  const inputSchema = readInputSchema(r);
  const outputSchema = r.object('outputSchema')?.value;
  const metadata = r.object('_meta')?.value;
  const annotations = readAnnotations(r);
  const homeless = { icons: r.array('icons'), execution: r.object('execution')?.value };
  const unknown = r.rest({ where: `tool "${names.id ?? names.name}"` });
  const { title, titleIn, annotationLeftovers } = pickTitle(topTitle, annotations);
  const inferred = inferEffects(annotations.hints);
  const derived = [...names.derived, ...(inferred?.derived ?? [])];
  const extension = compact<ToolExtension>({
    // `annotations: null` is among the nulls, so they go last.
    fields: keep({ ...homeless, ...unknown, annotations: annotationLeftovers, ...nulls }),
    titleIn,
  });
  return compactRequired<Tool>({
    name: names.name,
    id: names.id,
    title,
    description,
    inputSchema,
    outputSchema,
    metadata,
    hints: annotations.hints,
    effects: inferred?.effects,
    execution: inferred?.execution,
    derived: derived.length > 0 ? derived : undefined,
    extensions: extension === undefined ? undefined : { [MCP]: { ...extension } },
  });
}

/** MCP requires an object schema; a tool declared without one takes no arguments. */
function inputSchemaOf(schema: JsonSchema | undefined): JsonObject {
  return isPlainObject(schema) ? schema : { type: 'object' };
}

/**
 * `annotations` for export: the same hints the MCP gateway lists
 * ({@link mcpAnnotationsOf}), plus the title when it lived here.
 */
function annotationsOf(t: Tool, titleInAnnotations: boolean): JsonObject | undefined {
  const out = mcpAnnotationsOf(t);
  if (titleInAnnotations && t.title !== undefined) out['title'] = t.title;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * One canonical tool as an MCP `Tool`. Derived values are dropped first, so a
 * tool read from MCP comes back as it was written.
 * @example exportTool({ name: 'get_sum', effects: { mode: 'read' } })
 * // { name: 'get_sum', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }
 */
export function exportTool(tool: Tool, name: string = mcpWrittenName(tool)): unknown {
  const t = declared(tool);
  const extension = extensionOf(tool);
  const titleInAnnotations = extension?.['titleIn'] === 'annotations';
  return overlay(objectAt(extension, 'fields'), {
    name,
    title: titleInAnnotations ? undefined : t.title,
    description: t.description,
    inputSchema: inputSchemaOf(t.inputSchema),
    outputSchema: t.outputSchema,
    annotations: annotationsOf(t, titleInAnnotations),
    _meta: t.metadata,
  });
}

/**
 * The name export writes before MCP's name rule applies: `declared` drops a
 * derived name, and the MCP name is `id` then (mcpNameFor).
 * @example mcpWrittenName({ name: 'npm_versions', id: 'npmVersions', derived: ['name'] }) // 'npmVersions'
 */
export function mcpWrittenName(tool: Tool): string {
  return mcpNameFor({ name: tool.name, id: declared(tool).id });
}
