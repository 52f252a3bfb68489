/**
 * toolcap's own version, from package.json (for --version and /openapi.json).
 * @module
 */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The version in package.json, or 0.0.0 when it cannot be read. */
export function toolcapVersion(): string {
  if (cached !== undefined) return cached;
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    cached = pkg.version ?? '0.0.0';
  } catch {
    cached = '0.0.0';
  }
  return cached;
}
