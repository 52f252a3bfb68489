/**
 * The secrets the runtime can see, for the default redactor: the values of
 * every environment variable a manifest names. A manifest names one in
 * `auth.envs`, in a provider entry's `requiredEnv`, in any `*_env`/`*Env`
 * or `env` key of its config (`api_key_env: GOOGLE_API_KEY`, the http
 * provider's `auth.env`), and in a `${NAME}` reference inside a config
 * string (the command provider's `env` values). Token shapes (`sk-…`,
 * `ghp_…`, JWTs…) are redacted whatever names them (containment/redact.ts).
 * @module
 */
import type { Tool } from '../model/schema.js';
import { createRedactor, type Redactor } from './containment/redact.js';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const ENV_KEY = /(?:^env$|_env$|Env$)/;

/** Every variable name a config value names, at any depth. */
function configNames(value: unknown, key: string, out: Set<string>, depth = 0): void {
  if (depth > 16) return;
  if (typeof value === 'string') {
    if (ENV_KEY.test(key) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) out.add(value);
    for (const m of value.matchAll(REFERENCE)) out.add(m[1]!);
  } else if (Array.isArray(value)) {
    for (const v of value) configNames(v, key === 'requiredEnv' ? 'env' : '', out, depth + 1);
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) configNames(v, k, out, depth + 1);
  }
}

/**
 * The environment variables a tool's manifest names (sorted).
 * @example declaredEnvNames({ auth: { envs: { GITHUB_TOKEN: {} } }, providers: [{ name: 'x', config: { api_key_env: 'K' } }] }) // ['GITHUB_TOKEN', 'K']
 */
export function declaredEnvNames(tool: Pick<Tool, 'auth' | 'providers'>): string[] {
  const out = new Set<string>(Object.keys(tool.auth?.envs ?? {}));
  for (const p of tool.providers ?? []) configNames(p.config ?? {}, '', out);
  return [...out].sort();
}

/**
 * The default redactor of a catalog: the values, in `env`, of every variable
 * its manifests name, plus token shapes.
 * @example const redactor = manifestRedactor(snapshot.tools, process.env);
 */
export function manifestRedactor(tools: Iterable<Pick<Tool, 'auth' | 'providers'>>, env: Readonly<Record<string, string | undefined>>): Redactor {
  const names = new Set<string>();
  for (const tool of tools) for (const n of declaredEnvNames(tool)) names.add(n);
  return createRedactor({ secrets: [...names].map((n) => env[n]) });
}
