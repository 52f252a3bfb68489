/**
 * The identity of a tool version: its name, plus its personas when it is
 * persona-scoped (`name@persona,…`, personas sorted). One definition, used by
 * the merge, the filters, the API views and the runtime.
 * @module
 */
import type { Tool } from './schema.js';

/** `name`, or `name@a,b` for a tool scoped to personas a and b. */
export function toolKey(tool: Pick<Tool, 'name' | 'scope'>): string {
  const personas = tool.scope?.personas;
  return personas && personas.length > 0 ? `${tool.name}@${[...personas].sort().join(',')}` : tool.name;
}

/** Order by name, then key (the shared entry, whose key is the bare name, first). */
export function compareToolOrder(a: { key: string; tool: Tool }, b: { key: string; tool: Tool }): number {
  if (a.tool.name !== b.tool.name) return a.tool.name < b.tool.name ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
