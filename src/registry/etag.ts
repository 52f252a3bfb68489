/**
 * A snapshot's etag: a two-level SHA-256 of its canonical document, so a
 * reload that changed a few tools hashes those tools and 32 bytes for each
 * of the others, not the whole document (4.7 MB for 10,000 tools).
 *
 * The etag is `sha256:` + hex SHA-256 of
 * `toolcap-etag/2\n` + canonical JSON of the document without `tools` +
 * `\n` + the 32-byte SHA-256 of each tool's canonical JSON, in order.
 * Canonical JSON holds no raw line break, and the tool digests have one
 * length, so the bytes hashed name one document: any change to the
 * document's content changes the etag (as far as SHA-256 resists
 * collisions), and equal documents give equal etags in any process and any
 * build, incremental or full.
 * @module
 */
import { createHash } from 'node:crypto';
import { HASH_PREFIX } from '../model/hash.js';
import { canonicalJson, writeCanonicalJson } from '../model/objects.js';

/** Names this way of hashing, so a later one cannot give the same bytes. */
const TAG = 'toolcap-etag/2\n';

/**
 * SHA-256 of one tool's canonical JSON, what the etag takes for it: its 32
 * bytes as a `latin1` string (one character a byte), so the digests of
 * 10,000 tools join into one string and one hash update.
 * @example toolDigest({ name: 'files.read' }).length // 32
 */
export function toolDigest(tool: unknown): string {
  const hash = createHash('sha256');
  writeCanonicalJson(tool, (piece) => hash.update(piece, 'utf8'));
  return hash.digest('binary'); // 'binary' is latin1
}

/**
 * The etag of a document from its parts other than `tools` and the digests
 * ({@link toolDigest}) of its tools, in order.
 * @example etagOf({ bundles: [], skills: [], agents: [], jobs: [] }, [toolDigest(tool)])
 */
export function etagOf(rest: object, digests: readonly string[]): string {
  const hash = createHash('sha256');
  hash.update(TAG);
  hash.update(canonicalJson(rest), 'utf8');
  hash.update('\n');
  hash.update(digests.join(''), 'latin1');
  return HASH_PREFIX + hash.digest('hex');
}

/**
 * The etag of a whole document, every tool hashed here.
 * @example documentEtag({ bundles: [], tools: [tool], skills: [], agents: [], jobs: [] }) // 'sha256:…'
 */
export function documentEtag<D extends { readonly tools: readonly unknown[] }>(document: D): string {
  const { tools, ...rest } = document;
  return etagOf(rest, tools.map(toolDigest));
}
