/**
 * Schema definitions shared between tools, written once.
 *
 * In memory, a tool's schema is self-contained: definitions it reaches are in
 * its own `$defs`, and `$ref`s inside it are `#/$defs/<name>`. Definitions
 * that several tools reach (an OpenAPI component) are one object shared by
 * all their `$defs`, so memory holds each once; but written out tool by tool
 * they would be repeated in every tool (Stripe: 1.3 MB per tool).
 *
 * The canonical document therefore carries shared definitions once, in a
 * document-level `$defs` table, and each tool's schema keeps only what is its
 * own. The rule that makes both forms mean the same (docs/model.md, "Shared
 * schema definitions"): a `#/$defs/<name>` reference in a tool's schema
 * resolves to the schema's own `$defs/<name>` when it has one, else to the
 * document's `$defs/<name>` (exactly what JSON Schema says for a schema
 * embedded without `$id` in a document with top-level `$defs`).
 *
 * - {@link shareDefs} writes: a definition moves to the table when two or more
 *   schemas hold the very same object under the same name; a name taken by
 *   another object stays in the tool's own `$defs`. Cached per tool list.
 * - {@link attachSharedDefs} reads: each schema gets back, in its own `$defs`,
 *   the table entries it reaches (transitively, recursion included) and only
 *   those, so a catalog read from the shared form is the catalog written.
 * @module
 */
import { isPlainObject } from './objects.js';
import type { JsonSchema, Tool } from './schema.js';

/** Tool fields that hold JSON Schemas. */
export const SCHEMA_FIELDS = ['inputSchema', 'outputSchema', 'configSchema'] as const;

/**
 * Whether any of a tool's schemas carries `$defs` (an imported OpenAPI
 * tool's components, shared by identity with other tools in memory).
 */
export function hasSchemaDefs(tool: Tool): boolean {
  // a plain loop: a reload asks this of every tool, several times
  for (const field of SCHEMA_FIELDS) {
    const schema = tool[field];
    if (isPlainObject(schema) && '$defs' in schema) return true;
  }
  return false;
}

/** A document-level table of definitions, by name. */
export type DefsTable = Record<string, JsonSchema>;

/** Tools written with their shared definitions lifted into one table. */
export interface SharedTools {
  /** Definitions held by two or more schemas; absent when nothing is shared. */
  readonly $defs?: DefsTable;
  /** The tools, each schema without the definitions now in `$defs` (unchanged tools are the same objects). */
  readonly tools: readonly Tool[];
}

const PREFIX = '#/$defs/';

const shared = new WeakMap<readonly Tool[], SharedTools>();

/**
 * The tools with every definition that two or more schemas share lifted into
 * one document-level table (see the module notes). Computed once per tool
 * list (a snapshot's list is frozen, so the answer is cached on it).
 * @example
 * const { $defs, tools } = shareDefs(catalogTools); // write { toolcap: 1, $defs, tools }
 */
export function shareDefs(tools: readonly Tool[]): SharedTools {
  const known = shared.get(tools);
  if (known !== undefined) return known;
  // Pass 1: how many schemas hold each (name, object) pair; the first object seen under a name owns it.
  const owner = new Map<string, JsonSchema>();
  const uses = new Map<string, number>();
  for (const tool of tools) {
    for (const field of SCHEMA_FIELDS) {
      const defs = ownDefs(tool[field]);
      if (defs === undefined) continue;
      for (const name of Object.keys(defs)) {
        const value = defs[name]!;
        if (!owner.has(name)) owner.set(name, value);
        if (owner.get(name) === value) uses.set(name, (uses.get(name) ?? 0) + 1);
      }
    }
  }
  const table: DefsTable = {};
  for (const [name, count] of uses) if (count >= 2) table[name] = owner.get(name)!;
  const lifted = (name: string, value: JsonSchema) => Object.prototype.hasOwnProperty.call(table, name) && table[name] === value;
  // Pass 2: each schema without the lifted definitions.
  const out = tools.map((tool) => {
    let copy: Record<string, unknown> | undefined;
    for (const field of SCHEMA_FIELDS) {
      const schema = tool[field];
      const defs = ownDefs(schema);
      if (defs === undefined) continue;
      const names = Object.keys(defs);
      if (!names.some((n) => lifted(n, defs[n]!))) continue;
      const { $defs: _lifted, ...rest } = schema as Record<string, unknown>;
      const kept = names.filter((n) => !lifted(n, defs[n]!));
      if (kept.length > 0) rest['$defs'] = Object.fromEntries(kept.map((n) => [n, defs[n]]));
      (copy ??= { ...tool })[field] = rest;
    }
    return (copy as Tool | undefined) ?? tool;
  });
  const answer: SharedTools = Object.keys(table).length > 0 ? { $defs: table, tools: out } : { tools: out };
  shared.set(tools, answer);
  return answer;
}

/**
 * Each tool with the table's definitions its schemas reach put back into
 * their own `$defs` (transitively; a tool's own definition of a name wins).
 * Definitions are shared, not copied. Tools needing nothing are returned as
 * they are.
 */
export function attachSharedDefs<T extends Tool>(tools: readonly T[], table: DefsTable): T[] {
  const refsOfDef = new Map<string, readonly string[]>();
  const defRefs = (name: string): readonly string[] => {
    let refs = refsOfDef.get(name);
    if (refs === undefined) refsOfDef.set(name, (refs = [...defRefNames(table[name])]));
    return refs;
  };
  return tools.map((tool) => {
    let copy: Record<string, unknown> | undefined;
    for (const field of SCHEMA_FIELDS) {
      const schema = tool[field];
      if (schema === undefined || typeof schema === 'boolean') continue;
      const own = ownDefs(schema) ?? {};
      const reached = closure(defRefNames(schema), (name) => (Object.prototype.hasOwnProperty.call(own, name) ? [] : defRefs(name)), (name) => Object.prototype.hasOwnProperty.call(table, name) && !Object.prototype.hasOwnProperty.call(own, name));
      if (reached.length === 0) continue;
      const defs: DefsTable = {};
      for (const name of reached) defs[name] = table[name]!;
      (copy ??= { ...tool })[field] = { ...schema, $defs: { ...defs, ...own } };
    }
    return (copy as T | undefined) ?? tool;
  });
}

/**
 * The names of the definitions a schema reaches from its root, transitively
 * through its own `$defs`: what a self-contained copy must hold. Recursion
 * is fine (each name is visited once).
 */
export function reachedDefs(schema: JsonSchema | undefined): string[] {
  const defs = ownDefs(schema);
  if (defs === undefined) return [];
  const refsOf = (name: string) => [...defRefNames(defs[name])];
  return closure(defRefNames(schema, true), refsOf, (name) => Object.prototype.hasOwnProperty.call(defs, name));
}

/** Breadth-first names from `start`, following `next`, keeping those `keep` accepts. */
function closure(start: Iterable<string>, next: (name: string) => readonly string[], keep: (name: string) => boolean): string[] {
  const seen = new Set<string>();
  const queue: string[] = [];
  const push = (name: string) => {
    if (seen.has(name) || !keep(name)) return;
    seen.add(name);
    queue.push(name);
  };
  for (const name of start) push(name);
  for (let i = 0; i < queue.length; i++) for (const name of next(queue[i]!)) push(name);
  return queue;
}

/** A schema's own `$defs`, when it has them. */
function ownDefs(schema: JsonSchema | undefined): DefsTable | undefined {
  if (!isPlainObject(schema)) return undefined;
  const defs = schema['$defs'];
  return isPlainObject(defs) ? (defs as DefsTable) : undefined;
}

/**
 * Names `n` of every `"$ref": "#/$defs/n..."` in a value (walking shared
 * subtrees once). With `skipDefs`, the root's own `$defs` are not walked.
 */
export function defRefNames(value: unknown, skipDefs = false): Set<string> {
  const names = new Set<string>();
  const seen = new Set<object>();
  const stack: unknown[] = [];
  if (skipDefs && isPlainObject(value)) {
    for (const key of Object.keys(value)) if (key !== '$defs') stack.push(key === '$ref' ? { $ref: value[key] } : value[key]);
  } else stack.push(value);
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object' || seen.has(v)) continue;
    seen.add(v);
    if (Array.isArray(v)) {
      for (const item of v) if (item !== null && typeof item === 'object') stack.push(item);
      continue;
    }
    const record = v as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (key === '$ref' && typeof item === 'string') {
        const name = defName(item);
        if (name !== undefined) names.add(name);
      } else if (item !== null && typeof item === 'object') stack.push(item);
    }
  }
  return names;
}

/** `n` of `#/$defs/n` (or `#/$defs/n/...`), pointer- and percent-decoded. */
function defName(ref: string): string | undefined {
  if (!ref.startsWith(PREFIX)) return undefined;
  const token = ref.slice(PREFIX.length).split('/')[0]!;
  let decoded = token;
  try {
    decoded = decodeURIComponent(token);
  } catch {
    // keep the raw token
  }
  return decoded.replace(/~1/g, '/').replace(/~0/g, '~');
}
