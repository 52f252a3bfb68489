/**
 * The environment variables a manifest declares for one provider entry: the
 * only ones (besides a small base) a child process of that provider gets,
 * and the ones whose values are secrets to redact. Declared means named in
 * the manifest: the tool's `auth.envs`, the entry's `requiredEnv`, and every
 * string-valued config key ending in `_env` or `Env` (`api_key_env`,
 * `tokenEnv`), nested objects included (`auth: { env }` counts, as `env`).
 * @module
 */
import type { Provider, Tool } from '../../model/schema.js';

/** Config keys whose string value names an environment variable. */
const ENV_KEY = /(^env|_env|Env)$/;
/** Deepest config nesting looked into. */
const MAX_DEPTH = 4;

function fromConfig(value: unknown, names: Set<string>, depth: number): void {
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null || Array.isArray(value)) return;
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'requiredEnv' && Array.isArray(v)) {
      for (const n of v) if (typeof n === 'string' && n !== '') names.add(n);
    } else if (ENV_KEY.test(key) && typeof v === 'string' && v !== '') names.add(v);
    else fromConfig(v, names, depth + 1);
  }
}

/**
 * The variables `tool` and its provider `entry` declare, sorted.
 * @example declaredEnvNames({ name: 't', auth: { envs: { GH_TOKEN: {} } } }, { name: 'cli', config: { requiredEnv: ['GH_HOST'] } })
 * // ['GH_HOST', 'GH_TOKEN']
 */
export function declaredEnvNames(tool: Tool, entry?: Provider): string[] {
  const names = new Set<string>(Object.keys(tool.auth?.envs ?? {}));
  if (entry?.config) fromConfig(entry.config, names, 0);
  return [...names].sort();
}
