/**
 * A tool's `inputSchema` from an operation: one object whose properties are
 * the path, query, header and cookie parameters (path parameters required)
 * plus the request body as `body`. Swagger 2.0 `in: body` is the body;
 * `in: formData` parameters become the properties of a `body` object.
 * @module
 */
import type { JsonSchema } from '../../model/schema.js';
import { isPlainObject, jsonType } from '../../source/reader.js';
import type { OpenApiDocument, Operation } from './document.js';
import type { Location, Parameter, ParameterReader } from './parameters.js';
import { child } from './refs.js';
import type { Needs } from './schemas.js';

/** Where each input property goes in the HTTP request: the provider's `parameters` map. */
export type Routing = Record<string, { in: Location | 'body'; name: string }>;

/** The input schema and how its properties map onto the request. */
export interface Input {
  schema: JsonSchema;
  routing: Routing;
  /** The media type the body is sent as, when there is a body. */
  contentType?: string;
}

/** Media types preferred for a request body, best first; then any `+json`, then the first listed. */
const PREFERRED_MEDIA = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'];

interface Body {
  schema: JsonSchema;
  required: boolean;
  contentType?: string;
}

/** Build the input of one operation. */
export function buildInput(doc: OpenApiDocument, params: ParameterReader, op: Operation): Input {
  const needs: Needs = new Set();
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const routing: Routing = {};
  const add = (name: string, where: Location | 'body', schema: JsonSchema, isRequired: boolean) => {
    let property = name;
    for (let n = 2; Object.hasOwn(properties, property); n++) property = n === 2 ? `${where}_${name}` : `${where}_${name}_${n}`;
    properties[property] = schema;
    routing[property] = { in: where, name };
    if (isRequired) required.push(property);
  };
  const all = params.of(op);
  for (const p of all) {
    if (p.in === 'body' || p.in === 'formData') continue;
    add(p.name, p.in, p.schema, p.required);
    for (const name of p.needs) needs.add(name);
  }
  const body = doc.flavour === '2.0' ? swaggerBody(all, consumesOf(doc, op), needs) : requestBody(doc, op, needs);
  if (body !== undefined) add('body', 'body', body.schema, body.required);
  const root: Record<string, unknown> = { type: 'object', properties };
  if (required.length > 0) root['required'] = required;
  const input: Input = { schema: doc.schemas.root(root, needs), routing };
  if (body?.contentType !== undefined) input.contentType = body.contentType;
  return input;
}

/** Swagger 2.0: the `in: body` parameter, or the `formData` parameters as one object. */
function swaggerBody(all: readonly Parameter[], listed: readonly string[], needs: Needs): Body | undefined {
  const bodyParam = all.find((p) => p.in === 'body');
  const form = all.filter((p) => p.in === 'formData');
  if (bodyParam !== undefined) {
    for (const name of bodyParam.needs) needs.add(name);
    return withType({ schema: bodyParam.schema, required: bodyParam.required }, pickMedia(listed) ?? 'application/json');
  }
  if (form.length === 0) return undefined;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const p of form) {
    properties[p.name] = p.schema;
    if (p.required) required.push(p.name);
    for (const name of p.needs) needs.add(name);
  }
  const schema: Record<string, unknown> = { type: 'object', properties };
  if (required.length > 0) schema['required'] = required;
  const formType = listed.includes('multipart/form-data') ? 'multipart/form-data' : 'application/x-www-form-urlencoded';
  return withType({ schema, required: required.length > 0 }, formType);
}

/** Swagger 2.0 `consumes`: the operation's, else the document's. */
function consumesOf(doc: OpenApiDocument, op: Operation): string[] {
  const consumes = Array.isArray(op.value['consumes']) ? op.value['consumes'] : doc.root['consumes'];
  return Array.isArray(consumes) ? consumes.filter((c): c is string => typeof c === 'string') : [];
}

/** OpenAPI 3: the `requestBody`, with the schema of its preferred media type. */
function requestBody(doc: OpenApiDocument, op: Operation, needs: Needs): Body | undefined {
  if (op.value['requestBody'] === undefined) return undefined;
  const resolved = doc.refs.deref(op.value['requestBody'], child(op.place, 'requestBody'));
  if (resolved === undefined) return undefined;
  const { value, place } = resolved;
  if (!isPlainObject(value)) {
    doc.refs.report(place, 'TYPE_MISMATCH', `"requestBody" must be an object, not ${jsonType(value)}.`);
    return undefined;
  }
  const content = value['content'];
  if (!isPlainObject(content)) {
    doc.refs.report(content === undefined ? place : child(place, 'content'), content === undefined ? 'MISSING_FIELD' : 'TYPE_MISMATCH', 'A request body needs a "content" object of media types.');
    return undefined;
  }
  const media = pickMedia(Object.keys(content));
  const entry = media === undefined ? undefined : content[media];
  let schema: JsonSchema = {};
  if (media !== undefined && isPlainObject(entry) && 'schema' in entry) {
    schema = doc.schemas.shared(entry['schema'], child(child(child(place, 'content'), media), 'schema'), needs);
  }
  if (typeof value['description'] === 'string') {
    schema = typeof schema === 'boolean' ? { allOf: [schema], description: value['description'] } : Object.assign({}, schema, { description: value['description'] });
  }
  return withType({ schema, required: value['required'] === true }, media);
}

function withType(body: Body, contentType: string | undefined): Body {
  if (contentType !== undefined) body.contentType = contentType;
  return body;
}

/** The media type to send: JSON first, then form encodings, then any `+json`, then the first listed. */
function pickMedia(types: readonly string[]): string | undefined {
  const lower = types.map((t) => t.toLowerCase().split(';')[0]!.trim());
  for (const preferred of PREFERRED_MEDIA) {
    const i = lower.indexOf(preferred);
    if (i >= 0) return types[i];
  }
  const json = lower.findIndex((t) => t.endsWith('+json') || t.endsWith('/json'));
  return json >= 0 ? types[json] : types[0];
}
