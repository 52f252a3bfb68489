/**
 * The environment a child process gets: an allow-list, never the server's
 * whole environment. A small base every program needs to start and behave
 * (where programs are, whose home, which locale and time zone, where
 * temporary files go), plus exactly the variables the manifest declares
 * (auth envs, `requiredEnv`, config).
 *
 * Left out of the base on purpose: SHELL (tools run without a shell), TERM
 * (children have pipes, not a terminal), proxy and CA variables
 * (HTTP_PROXY, NODE_EXTRA_CA_CERTS…) and anything NODE_*: a tool that needs
 * them declares them.
 * @module
 */

/** Variables every child gets when the parent has them. */
export const BASE_ENV: readonly string[] = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR'];

/** What Windows programs need to start at all. */
const WINDOWS_BASE_ENV: readonly string[] = ['SystemRoot', 'WINDIR', 'COMSPEC', 'PATHEXT', 'TEMP', 'TMP', 'USERPROFILE', 'APPDATA', 'LOCALAPPDATA'];

/** Options of {@link envAllowList}. */
export interface EnvAllowListOptions {
  /** Where values come from. @default process.env */
  base?: Readonly<Record<string, string | undefined>>;
  /** The variables the manifest declares. */
  declared: Iterable<string>;
}

/**
 * The child's environment: the base variables and the declared ones that
 * are set in `base`, nothing else.
 * @example envAllowList({ base: { PATH: '/bin', PGPASSWORD: 'x', GITHUB_TOKEN: 't' }, declared: ['GITHUB_TOKEN'] })
 * // { PATH: '/bin', GITHUB_TOKEN: 't' }
 */
export function envAllowList(options: EnvAllowListOptions): Record<string, string> {
  const base = options.base ?? process.env;
  const names = [...BASE_ENV, ...(process.platform === 'win32' ? WINDOWS_BASE_ENV : []), ...options.declared];
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = base[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}
