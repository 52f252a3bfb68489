/**
 * OpenAPI Schema Objects as JSON Schema 2020-12, with every `$ref` resolved.
 *
 * Sharing: each reference target (a component schema, a schema in another
 * file) is translated once and the result is reused by every operation that
 * refers to it, so a spec whose 771 operations share a few hundred component
 * schemas holds each of them once.
 *
 * Recursion: a reference met while its own target is still being translated
 * (a recursive schema) becomes `{ "$ref": "#/$defs/<Name>" }`, and the tool's
 * root schema gets a `$defs` section holding every such target it needs
 * (see {@link SchemaBuilder.root}). So schemas are trees (possibly sharing
 * subtrees), never cyclic object graphs. Two more references are kept that
 * way: to a target whose tree exceeds {@link MAX_INLINE_NODES} nodes (inlining
 * Stripe's cross-linked objects everywhere would make 1.2 billion nodes for
 * other code to walk), and any met deeper than {@link MAX_INLINE_DEPTH}
 * levels (bounding the nesting, and the stack, of every walk).
 *
 * OpenAPI 3.0 and Swagger 2.0 dialect keywords are rewritten to their JSON
 * Schema 2020-12 forms: `nullable: true` (and Swagger's common vendor
 * extension `x-nullable: true`) adds `"null"` to `type` (and `enum`),
 * boolean `exclusiveMinimum`/`exclusiveMaximum` become numbers, and Swagger's
 * `type: file` becomes `type: string, format: binary`. Other keywords
 * (`example`, `discriminator`, `xml`, `x-*`) are kept as they are.
 * @module
 */
import type { JsonSchema } from '../../model/schema.js';
import { isPlainObject, jsonType } from '../../source/reader.js';
import { copyKeys, needsUpgrade, upgradeKeywords } from './keywords.js';
import { child, refOf, type Place, type RefResolver } from './refs.js';

/** Which OpenAPI generation a document is. */
export type Flavour = '2.0' | '3.0' | '3.1';

/** Names of `$defs` entries a schema refers to; accumulated while translating. */
export type Needs = Set<string>;

/** Nesting depth beyond which references are kept as `$ref`s into `$defs`. @default 256 */
export const MAX_INLINE_DEPTH = 256;

/** Expanded size (nodes) above which a shared schema is referred to through `$defs` rather than inlined. */
export const MAX_INLINE_NODES = 100;

/** Keywords whose value is one subschema. */
const SUBSCHEMA = new Set(['items', 'additionalItems', 'contains', 'additionalProperties', 'propertyNames', 'if', 'then', 'else', 'not', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema']);
/** Keywords whose value is an object of subschemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose value is an array of subschemas. */
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords that may sit next to a `$ref` and only describe it. */
const ANNOTATIONS = new Set(['description', 'title', 'summary', 'deprecated', 'readOnly', 'writeOnly', 'default', 'example', 'examples', '$comment']);

/** One reference target, translated at most once. */
interface Target {
  readonly value: unknown;
  readonly place: Place;
  state: 'new' | 'busy' | 'deferred' | 'done';
  /** Nodes in the translated tree, reused targets counted whole. */
  size: number;
  name?: string;
  schema?: JsonSchema;
  needs?: Needs;
}

/** Translates the schemas of one document, sharing every reference target. */
export class SchemaBuilder {
  readonly #targets = new Map<object, Target>();
  readonly #byName = new Map<string, Target>();
  readonly #placeholders = new Map<string, JsonSchema>();
  /** Nodes built so far, counting a reused target by its size: differences give tree sizes. */
  #count = 0;
  #depth = 0;

  constructor(
    readonly refs: RefResolver,
    readonly flavour: Flavour,
  ) {}

  /**
   * The JSON Schema for the schema `value` at `place`. Names of `$defs` the
   * result refers to are added to `needs`; pass the result and `needs` to
   * {@link root} when it becomes a tool's schema.
   */
  schema(value: unknown, place: Place, needs: Needs): JsonSchema {
    if (typeof value === 'boolean') return value;
    if (!isPlainObject(value)) {
      this.refs.report(place, 'TYPE_MISMATCH', `A schema must be an object or a boolean, not ${jsonType(value)}.`, 'Write the schema as an object, e.g. { "type": "string" }.');
      return {};
    }
    this.#depth++;
    const ref = value['$ref'];
    const out = typeof ref === 'string' ? this.#reference(value, ref, place, needs) : this.#object(value, place, needs);
    this.#depth--;
    return out;
  }

  /**
   * Like {@link schema}, for a schema that several operations reach without a
   * `$ref` (one in a shared parameter, response or request body): translated
   * once per place and shared.
   */
  shared(value: unknown, place: Place, needs: Needs): JsonSchema {
    if (refOf(value) !== undefined) return this.schema(value, place, needs);
    return this.#use(this.#target(value, place), needs, true);
  }

  /**
   * A schema made ready to stand alone: when it needs `$defs`, a shallow copy
   * with a `$defs` section holding every target it needs, transitively.
   */
  root(schema: JsonSchema, needs: Needs): JsonSchema {
    if (needs.size === 0) return schema;
    const defs: Record<string, JsonSchema> = {};
    const queue = [...needs];
    const queued = new Set(queue);
    for (let i = 0; i < queue.length; i++) {
      const target = this.#byName.get(queue[i]!);
      if (target === undefined) continue;
      if (target.state === 'deferred') this.#build(target);
      defs[target.name!] = target.schema ?? {};
      for (const name of target.needs ?? []) if (!queued.has(name)) (queued.add(name), queue.push(name));
    }
    if (typeof schema === 'boolean') return { allOf: [schema], $defs: defs };
    const own = isPlainObject(schema['$defs']) ? schema['$defs'] : {};
    return Object.assign({}, schema, { $defs: Object.assign({}, own, defs) });
  }

  /**
   * One schema object. Copy on change: a subtree with no `$ref` and nothing to
   * upgrade is the source object itself, so only what differs is allocated.
   */
  #object(value: Record<string, unknown>, place: Place, needs: Needs): Record<string, unknown> {
    const keys = Object.keys(value);
    this.#count += 1 + keys.length;
    let out: Record<string, unknown> | undefined;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const v = value[key];
      if (key === 'items' && Array.isArray(v)) {
        out ??= copyKeys(value, keys, i);
        out['prefixItems'] = this.#list(v, child(place, key), needs);
        continue;
      }
      const converted = this.#keyword(key, v, place, needs);
      if (converted !== v) out ??= copyKeys(value, keys, i);
      if (out !== undefined) out[key] = converted;
    }
    if (this.flavour !== '3.1' && needsUpgrade(value)) upgradeKeywords((out ??= { ...value }));
    return out ?? value;
  }

  /** The value of one keyword, its subschemas translated. */
  #keyword(key: string, v: unknown, place: Place, needs: Needs): unknown {
    if (SUBSCHEMA.has(key)) return isPlainObject(v) || typeof v === 'boolean' ? this.schema(v, child(place, key), needs) : v;
    if (SCHEMA_MAPS.has(key) && isPlainObject(v)) return this.#map(v, child(place, key), needs);
    if (SCHEMA_LISTS.has(key) && Array.isArray(v)) return this.#list(v, child(place, key), needs);
    return v;
  }

  #map(value: Record<string, unknown>, place: Place, needs: Needs): Record<string, unknown> {
    const keys = Object.keys(value);
    let out: Record<string, unknown> | undefined;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const converted = this.schema(value[key], child(place, key), needs);
      if (converted !== value[key]) out ??= copyKeys(value, keys, i);
      if (out !== undefined) out[key] = converted;
    }
    return out ?? value;
  }

  #list(value: readonly unknown[], place: Place, needs: Needs): unknown[] {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const converted = this.schema(value[i], child(place, i), needs);
      if (converted !== value[i]) out ??= value.slice(0, i);
      if (out !== undefined) out.push(converted);
    }
    return out ?? (value as unknown[]);
  }

  #reference(node: Record<string, unknown>, ref: string, place: Place, needs: Needs): JsonSchema {
    const resolved = this.refs.resolve(ref, place);
    const target = resolved === undefined ? undefined : this.#target(resolved.value, resolved.place);
    const schema = target === undefined ? {} : this.#use(target, needs);
    return this.#withSiblings(node, schema, place, needs);
  }

  /** The translation of a target, built now if need be, or a `$ref` into `$defs` while it is under way or too deep. */
  #use(target: Target, needs: Needs, inline = false): JsonSchema {
    if (target.state === 'new' && this.#depth > MAX_INLINE_DEPTH) target.state = 'deferred';
    if (target.state === 'new') {
      const saved = this.#count;
      this.#build(target);
      this.#count = saved;
    }
    if (target.state === 'done' && (inline || target.size <= MAX_INLINE_NODES)) {
      for (const name of target.needs ?? []) needs.add(name);
      this.#count += target.size;
      return target.schema ?? {};
    }
    const placeholder = this.#placeholder(target);
    needs.add(target.name!);
    this.#count += 1;
    return placeholder;
  }

  /** The target for a schema object; the same object is the same target, however it is reached. */
  #target(value: unknown, place: Place): Target {
    if (value === null || typeof value !== 'object') return { value, place, state: 'new', size: 0 };
    let target = this.#targets.get(value);
    if (target === undefined) {
      target = { value, place, state: 'new', size: 0 };
      this.#targets.set(value, target);
    }
    return target;
  }

  /** Translate one target on its own (fresh) accumulator of needs. */
  #build(target: Target): void {
    target.state = 'busy';
    const start = this.#count;
    const needs: Needs = new Set();
    let schema = this.schema(target.value, target.place, needs);
    if (target.name !== undefined && schema === this.#placeholders.get(target.name)) {
      this.refs.report(target.place, 'INVALID_VALUE', 'This schema is only a reference back to itself.', 'Give the schema a body, or point the reference at one that has.');
      schema = {};
      needs.clear();
    }
    target.schema = schema;
    target.size = this.#count - start;
    if (needs.size > 0) target.needs = needs;
    target.state = 'done';
  }

  #placeholder(target: Target): JsonSchema {
    const name = (target.name ??= this.#nameFor(target));
    let placeholder = this.#placeholders.get(name);
    if (placeholder === undefined) {
      placeholder = { $ref: `#/$defs/${name}` };
      this.#placeholders.set(name, placeholder);
    }
    return placeholder;
  }

  /** A `$defs` name from the target's pointer (or file name), unique within the document. */
  #nameFor(target: Target): string {
    const tokens = target.place.pointer.split('/');
    const last = tokens[tokens.length - 1] || target.place.file.replace(/^.*\/|\.[^.]*$/g, '') || 'schema';
    const base = last.replace(/~1/g, '/').replace(/~0/g, '~').replace(/[^A-Za-z0-9_.-]+/g, '_') || 'schema';
    let name = base;
    for (let n = 2; this.#byName.has(name); n++) name = `${base}_${n}`;
    this.#byName.set(name, target);
    return name;
  }

  /**
   * Keywords next to a `$ref`. Annotations (description, title, ...) are laid
   * over a shallow copy in every version. In 3.1, where siblings are part of
   * the schema, other keywords are kept too and the target joins them through
   * `allOf`; in 3.0 and 2.0 the specification says to ignore them.
   */
  #withSiblings(node: Record<string, unknown>, schema: JsonSchema, place: Place, needs: Needs): JsonSchema {
    let annotations: Record<string, unknown> | undefined;
    let others: Record<string, unknown> | undefined;
    for (const key of Object.keys(node)) {
      if (key === '$ref') continue;
      if (ANNOTATIONS.has(key)) (annotations ??= {})[key] = node[key];
      else (others ??= {})[key] = node[key];
    }
    if (others !== undefined && this.flavour === '3.1') {
      const rest = this.#object({ ...others, ...annotations }, place, needs);
      const allOf = Array.isArray(rest['allOf']) ? (rest['allOf'] as unknown[]) : [];
      return Object.assign(rest, { allOf: [schema, ...allOf] });
    }
    if (annotations === undefined) return schema;
    return typeof schema === 'boolean' ? { allOf: [schema], ...annotations } : Object.assign({}, schema, annotations);
  }
}
