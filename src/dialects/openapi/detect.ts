/**
 * Recognising OpenAPI and Swagger documents: `openapi: "3.x"` or
 * `swagger: "2.0"` with a `paths` object. An OpenAPI 3.1 document may have
 * only `webhooks` or `components` instead (the 3.1 specification allows it);
 * it is recognised too and yields no tools.
 * @module
 */
import { isPlainObject } from '../../source/reader.js';
import type { DetectHints } from '../types.js';
import type { Flavour } from './schemas.js';

/** The generation of a document from its version field, or undefined when it names none toolcap reads. */
export function flavourOf(value: Record<string, unknown>): Flavour | undefined {
  const openapi = value['openapi'];
  if (typeof openapi === 'string') {
    if (/^3\.0(\.|$)/.test(openapi)) return '3.0';
    if (/^3\.[1-9]\d*(\.|$)/.test(openapi)) return '3.1';
    return undefined;
  }
  return value['swagger'] === '2.0' ? '2.0' : undefined;
}

/**
 * How sure we are that `value` is an OpenAPI document: 0.95 with `paths`,
 * 0.9 for a 3.1 document without paths, 0 otherwise. Never throws.
 */
export function detectOpenApi(value: unknown, _hints: DetectHints): number {
  if (!isPlainObject(value)) return 0;
  const flavour = flavourOf(value);
  if (flavour === undefined) return 0;
  if (isPlainObject(value['paths'])) return 0.95;
  return flavour === '3.1' && (isPlainObject(value['webhooks']) || isPlainObject(value['components'])) ? 0.9 : 0;
}
