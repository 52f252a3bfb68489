/**
 * Code identities: the stable hashes providers give for
 * `ProviderInstance.codeIdentity()`. An approval is bound to the manifest
 * and to this, so the parts must be exactly what decides which code runs,
 * and hash the same way every time (`contentHash`: keys sorted).
 *
 * File hashes are cached by path, size, mtime, ctime and inode: an
 * executable such as `node` is ~100 MB and is named by every call of every
 * tool that runs it, while a stat is cheap and any write changes mtime/ctime.
 * @module
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { contentHash } from '../../model/hash.js';

/**
 * The identity string of a provider type's parts: `<type>:` + the content
 * hash (`sha256:…` of the canonical JSON) of the parts.
 * @example codeIdentityOf('http', { method: 'GET', url: 'https://api.example.com/items/{id}' }) // 'http:sha256:3b1f…'
 */
export function codeIdentityOf(type: string, parts: Record<string, unknown>): string {
  return `${type}:${contentHash(parts)}`;
}

const fileHashes = new Map<string, { key: string; hash: string }>();

/**
 * sha256 hex of a file's bytes, or undefined when it is not a readable
 * regular file. Cached until the file's size, mtime, ctime or inode change.
 */
export async function fileSha256(path: string): Promise<string | undefined> {
  let key: string;
  try {
    const s = await stat(path, { bigint: true });
    if (!s.isFile()) return undefined;
    key = `${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.ino}`;
  } catch {
    return undefined;
  }
  const cached = fileHashes.get(path);
  if (cached?.key === key) return cached.hash;
  try {
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
    const digest = hash.digest('hex');
    fileHashes.set(path, { key, hash: digest });
    return digest;
  } catch {
    return undefined;
  }
}
