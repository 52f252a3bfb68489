/**
 * Environment references in an MCP server's settings: `${NAME}` inside its
 * args, env values, url and header values (the config reader writes
 * `{ env: NAME }` as `${NAME}`), resolved from the environment when toolcap
 * connects, so the config file never holds a secret. A reference to an unset
 * variable keeps the server from starting, with a message naming every
 * variable to set.
 * @module
 */
import type { McpServerConfig } from './config.js';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The variables a server's settings refer to, in order of first use. */
export function serverReferences(cfg: Pick<McpServerConfig, 'args' | 'env' | 'headers' | 'url'>): string[] {
  const names = new Set<string>();
  const scan = (text: string | undefined) => {
    if (text !== undefined) for (const m of text.matchAll(REFERENCE)) names.add(m[1]!);
  };
  cfg.args.forEach(scan);
  Object.values(cfg.env).forEach(scan);
  Object.values(cfg.headers).forEach(scan);
  scan(cfg.url);
  return [...names];
}

/** Thrown when a referenced variable is unset: `missing` names them all. */
export class MissingServerSettings extends Error {
  override readonly name = 'MissingServerSettings';
  constructor(
    readonly server: string,
    readonly missing: readonly string[],
  ) {
    super(`set ${missing.join(', ')} in the environment toolcap runs in (the config of MCP server "${server}" refers to ${missing.length === 1 ? 'it' : 'them'}: { env: NAME } or \${NAME})`);
  }
}

/**
 * The settings with every `${NAME}` replaced by its value in `env`; throws
 * {@link MissingServerSettings} when any is unset (an empty value counts as set).
 * @example resolveServerReferences(cfg, { TOKEN: 'x' }).headers // { Authorization: 'Bearer x' }
 */
export function resolveServerReferences<T extends Pick<McpServerConfig, 'name' | 'args' | 'env' | 'headers' | 'url'>>(cfg: T, env: Readonly<Record<string, string | undefined>> = process.env): T {
  const missing = serverReferences(cfg).filter((n) => env[n] === undefined);
  if (missing.length > 0) throw new MissingServerSettings(cfg.name, missing);
  const fill = (text: string) => text.replace(REFERENCE, (_m, n: string) => env[n] ?? '');
  const map = (m: Record<string, string>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, fill(v)]));
  return { ...cfg, args: cfg.args.map(fill), env: map(cfg.env), headers: map(cfg.headers), ...(cfg.url !== undefined ? { url: fill(cfg.url) } : {}) };
}
