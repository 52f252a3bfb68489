/**
 * Content hashes of tools: what a reviewer approved, pinned as one string.
 *
 * The hash covers the declared manifest content only. Derived values are left
 * out because they are toolcap's reading of silence, not something anybody
 * wrote: they may change when toolcap's conservative defaults change, and an
 * approval should not be voided by that. Key order and source format do not
 * matter either: the same declarations in ATLAS JSON and in canonical YAML
 * hash the same.
 * @module
 */
import { createHash } from 'node:crypto';
import { complete, declared } from './derive.js';
import { writeCanonicalJson } from './objects.js';
import type { Tool } from './schema.js';

/** The algorithm prefix every content hash carries, so another algorithm can follow without ambiguity. */
export const HASH_PREFIX = 'sha256:';

/**
 * `sha256:` + hex SHA-256 of the canonical JSON (keys sorted at every level)
 * of a value.
 * @example contentHash({ b: 1, a: 2 }) === contentHash({ a: 2, b: 1 }) // true
 */
export function contentHash(value: unknown): string {
  const hash = createHash('sha256');
  writeCanonicalJson(value, (piece) => hash.update(piece, 'utf8'));
  return HASH_PREFIX + hash.digest('hex');
}

/**
 * The content hash of a tool: `contentHash(declared(tool))` of the tool as a
 * catalog holds it (merged and completed). A raw tool is completed first, so
 * a tool hashes the same before and after `buildCatalog` fills in derived
 * values (`approval: {}` and no `approval` at all are one declaration).
 * @example
 * toolHash({ name: 'files.read', effects: { mode: 'read' } })
 * // 'sha256:…' — the same for the completed tool
 */
export function toolHash(tool: Tool): string {
  return contentHash(declared(complete(tool)));
}
