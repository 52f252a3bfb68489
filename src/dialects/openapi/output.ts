/**
 * A tool's `outputSchema`: the JSON schema of the operation's first success
 * response, by status code ("200" before "201" before "2XX"), that has one.
 * @module
 */
import type { JsonSchema } from '../../model/schema.js';
import { isPlainObject, jsonType } from '../../source/reader.js';
import type { OpenApiDocument, Operation } from './document.js';
import { child, type Place } from './refs.js';
import type { Needs } from './schemas.js';

const SUCCESS = /^2(\d\d|xx)$/i;

/** The output schema of one operation, or undefined when no 2xx response has a JSON schema. */
export function buildOutput(doc: OpenApiDocument, op: Operation): JsonSchema | undefined {
  const responses = op.value['responses'];
  if (responses === undefined) return undefined;
  const place = child(op.place, 'responses');
  if (!isPlainObject(responses)) {
    doc.refs.report(place, 'TYPE_MISMATCH', `"responses" must be an object, not ${jsonType(responses)}.`);
    return undefined;
  }
  const codes = Object.keys(responses).filter((c) => SUCCESS.test(c)).sort();
  for (const code of codes) {
    const needs: Needs = new Set();
    const schema = responseSchema(doc, responses[code], child(place, code), needs);
    if (schema !== undefined) return doc.schemas.root(schema, needs);
  }
  return undefined;
}

function responseSchema(doc: OpenApiDocument, value: unknown, at: Place, needs: Needs): JsonSchema | undefined {
  const resolved = doc.refs.deref(value, at);
  if (resolved === undefined || !isPlainObject(resolved.value)) return undefined;
  const { value: response, place } = resolved;
  if (doc.flavour === '2.0') {
    return 'schema' in response ? doc.schemas.shared(response['schema'], child(place, 'schema'), needs) : undefined;
  }
  const content = response['content'];
  if (!isPlainObject(content)) return undefined;
  const media = Object.keys(content).find(isJson);
  const entry = media === undefined ? undefined : content[media];
  if (media === undefined || !isPlainObject(entry) || !('schema' in entry)) return undefined;
  return doc.schemas.shared(entry['schema'], child(child(child(place, 'content'), media), 'schema'), needs);
}

/** `application/json`, `application/vnd.github.v3+json`, `*\/*`-free JSON types. */
function isJson(mediaType: string): boolean {
  const base = mediaType.toLowerCase().split(';')[0]!.trim();
  return base === 'application/json' || base.endsWith('+json') || base.endsWith('/json');
}
