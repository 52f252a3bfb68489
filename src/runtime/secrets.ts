/**
 * The secrets the runtime can see, for the default redactor: the values of
 * every environment variable a manifest names. Named means declared
 * (providers/declared-env.ts: `auth.envs`, `requiredEnv`, `*_env`/`*Env`
 * and `env` config keys) or referenced as `${NAME}` inside a config string
 * (the command provider's `env` values). Token shapes (`sk-…`, `ghp_…`,
 * JWTs…) are redacted whatever names them (containment/redact.ts).
 * @module
 */
import type { Tool } from '../model/schema.js';
import { createRedactor, type Redactor } from './containment/redact.js';
import { credentialNames } from './credentials.js';
import { declaredEnvNames } from './providers/declared-env.js';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Every `${NAME}` a config value refers to, at any depth. */
function references(value: unknown, out: Set<string>, depth = 0): void {
  if (depth > 16) return;
  if (typeof value === 'string') for (const m of value.matchAll(REFERENCE)) out.add(m[1]!);
  else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) references(v, out, depth + 1);
}

/**
 * Every environment variable a tool's manifest names, sorted.
 * @example secretEnvNames(tool) // ['GITHUB_TOKEN', 'PGPASSWORD']
 */
export function secretEnvNames(tool: Tool): string[] {
  // credentialNames: the variables provider types read by default (GOOGLE_API_KEY for google_cse) count too
  const out = new Set<string>([...declaredEnvNames(tool), ...credentialNames(tool)]);
  for (const entry of tool.providers ?? []) {
    for (const n of declaredEnvNames(tool, entry)) out.add(n);
    references(entry.config ?? {}, out);
  }
  return [...out].sort();
}

/**
 * The default redactor of a catalog: the values, in `env`, of every variable
 * its manifests name, plus token shapes.
 * @example const redactor = manifestRedactor(snapshot.tools, process.env);
 */
export function manifestRedactor(tools: Iterable<Tool>, env: Readonly<Record<string, string | undefined>>, extra: readonly string[] = []): Redactor {
  const names = new Set<string>();
  for (const tool of tools) for (const n of secretEnvNames(tool)) names.add(n);
  return createRedactor({ secrets: [...[...names].map((n) => env[n]), ...extra] });
}
