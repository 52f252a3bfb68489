/**
 * Parameter Objects (path, query, header, cookie; and Swagger 2.0 `body` and
 * `formData`), read once each and shared by every operation using them.
 * @module
 */
import type { JsonSchema } from '../../model/schema.js';
import { isMember } from '../../model/vocabulary.js';
import { isPlainObject, jsonType } from '../../source/reader.js';
import type { OpenApiDocument, Operation } from './document.js';
import { child, type Place } from './refs.js';
import type { Needs } from './schemas.js';

/** Where a parameter goes. `body` and `formData` exist in Swagger 2.0 only. */
export const LOCATIONS = ['path', 'query', 'header', 'cookie', 'body', 'formData'] as const;
export type Location = (typeof LOCATIONS)[number];

/** One parameter, as an input property. */
export interface Parameter {
  readonly name: string;
  readonly in: Location;
  readonly required: boolean;
  /** The property schema, the parameter's description laid over it. */
  readonly schema: JsonSchema;
  readonly needs: Needs;
}

/** Swagger 2.0 keywords of a non-body parameter that make up its schema. */
const SWAGGER_SCHEMA_KEYS = ['type', 'format', 'items', 'default', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'enum', 'multipleOf'];
/** Header parameters OpenAPI 3 says to ignore: HTTP itself carries them. */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/** Reads parameters, caching each by its (resolved) object. */
export class ParameterReader {
  /** By the (resolved) Parameter Object itself: the same object is the same parameter wherever it is used. */
  readonly #cache = new Map<object, Parameter | undefined>();

  constructor(readonly doc: OpenApiDocument) {}

  /**
   * The parameters of an operation: the path item's, overridden by the
   * operation's own with the same name and location.
   */
  of(op: Operation): Parameter[] {
    const byKey = new Map<string, Parameter>();
    for (const [owner, place] of [[op.item, op.itemPlace], [op.value, op.place]] as const) {
      const list = owner['parameters'];
      if (list === undefined) continue;
      const listPlace = child(place, 'parameters');
      if (!Array.isArray(list)) {
        this.doc.refs.report(listPlace, 'TYPE_MISMATCH', `"parameters" must be an array, not ${jsonType(list)}.`);
        continue;
      }
      list.forEach((item, i) => {
        const param = this.#read(item, child(listPlace, i));
        if (param !== undefined) byKey.set(`${param.in}:${param.name}`, param);
      });
    }
    return [...byKey.values()];
  }

  #read(value: unknown, place: Place): Parameter | undefined {
    const resolved = this.doc.refs.deref(value, place);
    if (resolved === undefined) return undefined;
    const key = resolved.value;
    if (!isPlainObject(key)) return this.#parse(key, resolved.place);
    if (this.#cache.has(key)) return this.#cache.get(key);
    const param = this.#parse(key, resolved.place);
    this.#cache.set(key, param);
    return param;
  }

  #parse(value: unknown, place: Place): Parameter | undefined {
    const { refs } = this.doc;
    if (!isPlainObject(value)) {
      refs.report(place, 'TYPE_MISMATCH', `A parameter must be an object, not ${jsonType(value)}.`);
      return undefined;
    }
    const name = value['name'];
    const where = value['in'];
    if (typeof name !== 'string' || name === '') {
      refs.report(name === undefined ? place : child(place, 'name'), name === undefined ? 'MISSING_FIELD' : 'TYPE_MISMATCH', 'A parameter needs a "name" string; it is skipped.');
      return undefined;
    }
    if (!isMember(LOCATIONS, where) || (this.doc.flavour !== '2.0' && (where === 'body' || where === 'formData'))) {
      const allowed = this.doc.flavour === '2.0' ? LOCATIONS : LOCATIONS.slice(0, 4);
      refs.report(where === undefined ? place : child(place, 'in'), where === undefined ? 'MISSING_FIELD' : 'UNKNOWN_ENUM_VALUE', `Parameter "${name}" needs "in": one of ${allowed.join(', ')}; it is skipped.`);
      return undefined;
    }
    if (where === 'header' && this.doc.flavour !== '2.0' && IGNORED_HEADERS.has(name.toLowerCase())) return undefined;
    if (name === '__proto__') {
      // a parameter's name is a key of the tool's input properties: as a key of the document would be, it is dropped
      refs.report(child(place, 'name'), 'UNSAFE_KEY', `Parameter "__proto__" (in ${where}) is skipped: as an input property it could change object prototypes.`, 'Rename the parameter; no API needs this name.');
      return undefined;
    }
    const needs: Needs = new Set();
    const schema = describe(this.#schema(value, place, where, needs), value);
    return { name, in: where, required: where === 'path' || value['required'] === true, schema, needs };
  }

  /** The parameter's schema: `schema`, or the first `content` entry's (3.x), or its own keywords (2.0). */
  #schema(value: Record<string, unknown>, place: Place, where: Location, needs: Needs): JsonSchema {
    const { schemas, flavour } = this.doc;
    if (flavour !== '2.0' || where === 'body') {
      if ('schema' in value) return schemas.shared(value['schema'], child(place, 'schema'), needs);
      const content = value['content'];
      const first = isPlainObject(content) ? Object.keys(content)[0] : undefined;
      const media = first === undefined || !isPlainObject(content) ? undefined : content[first];
      if (first !== undefined && isPlainObject(media) && 'schema' in media) {
        return schemas.shared(media['schema'], child(child(child(place, 'content'), first), 'schema'), needs);
      }
      return {};
    }
    const own: Record<string, unknown> = {};
    for (const key of SWAGGER_SCHEMA_KEYS) if (key in value) own[key] = value[key];
    for (const key of Object.keys(value)) if (key.startsWith('x-')) own[key] = value[key];
    return schemas.schema(own, place, needs);
  }
}

/** Lay the parameter's `description` and `deprecated` over its schema (a shallow copy; the schema may be shared). */
function describe(schema: JsonSchema, param: Record<string, unknown>): JsonSchema {
  const extra: Record<string, unknown> = {};
  if (typeof param['description'] === 'string') extra['description'] = param['description'];
  if (param['deprecated'] === true) extra['deprecated'] = true;
  if (Object.keys(extra).length === 0) return schema;
  return typeof schema === 'boolean' ? { allOf: [schema], ...extra } : Object.assign({}, schema, extra);
}
