/**
 * What every part of an OpenAPI import shares: the document, its generation,
 * the reference resolver and the schema builder, and the one operation being
 * read.
 * @module
 */
import type { ImportContext } from '../types.js';
import type { Place, RefResolver } from './refs.js';
import type { Flavour, SchemaBuilder } from './schemas.js';

/** HTTP methods that name operations in a Path Item Object, in the order the specification lists them. */
export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type Method = (typeof METHODS)[number];

/** One OpenAPI or Swagger document being imported. */
export interface OpenApiDocument {
  readonly context: ImportContext;
  readonly root: Record<string, unknown>;
  readonly flavour: Flavour;
  readonly refs: RefResolver;
  readonly schemas: SchemaBuilder;
}

/** One operation: where it is and the path item around it. */
export interface Operation {
  readonly method: Method;
  /** The path template, e.g. `/repos/{owner}/{repo}`. */
  readonly path: string;
  readonly value: Record<string, unknown>;
  readonly place: Place;
  /** The (resolved) Path Item Object holding the operation. */
  readonly item: Record<string, unknown>;
  readonly itemPlace: Place;
}
