/**
 * A canonical tool back into an OpenAI tool entry. OpenAI function tools
 * hold a name, a description and a parameter schema; every capability field
 * (effects, approval, execution, ...) has no place in them and is not
 * written: the API rejects unknown keys.
 * @module
 */
import { declared, isDerived } from '../../model/derive.js';
import { splitPointer } from '../../model/diagnostics.js';
import { compact } from '../../model/objects.js';
import type { Tool } from '../../model/schema.js';
import { toolExtensionOf, type ToolExtension } from './extension.js';
import { restoreTypes } from './repair.js';

/**
 * The entry for one tool, in the shape its source had (the wrapped Chat
 * Completions form by default), with repaired `type` spellings put back.
 */
export function exportTool(tool: Tool, name: string = openaiNameOf(tool)): Record<string, unknown> {
  const ext = toolExtensionOf(tool);
  const fn = functionObject(tool, ext, name);
  if (ext.shape === 'bare') return fn;
  if (ext.shape === 'flat') return { type: 'function', ...fn };
  return { ...ext.wrapper, type: 'function', function: fn };
}

/**
 * The name a tool is written under before the name rule applies: a derived
 * name is our lowercase form, so the source spelling (the id) is written.
 * @example openaiNameOf({ name: 'get_weather', id: 'getWeather', derived: ['name'] }) // 'getWeather'
 */
export function openaiNameOf(tool: Tool): string {
  return isDerived(tool, 'name') ? (tool.id ?? tool.name) : tool.name;
}

function functionObject(tool: Tool, ext: ToolExtension, name: string): Record<string, unknown> {
  const t = declared(tool);
  const fn: Record<string, unknown> = {
    ...ext.fields,
    ...compact<Record<string, unknown>>({
      name,
      description: t.description,
      parameters: t.inputSchema,
      strict: ext.strict,
      // Only BFCL-style sources had a place for it; OpenAI itself has none.
      response: ext.response ? t.outputSchema : undefined,
    }),
  };
  if (ext.repairs) restoreRepairs(fn, ext.repairs);
  return fn;
}

/** Put the source `type` spellings back, on copies of the schemas they live in. */
function restoreRepairs(fn: Record<string, unknown>, repairs: Record<string, unknown>): void {
  for (const key of ['parameters', 'response']) {
    if (fn[key] !== null && typeof fn[key] === 'object') fn[key] = structuredClone(fn[key]);
  }
  restoreTypes(
    fn,
    Object.entries(repairs).map(([pointer, original]) => [splitPointer(pointer), original] as const),
  );
}
