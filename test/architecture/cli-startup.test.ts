/**
 * The command line loads a command's code when that command runs: `toolcap
 * --help` reads no catalog code, and the catalog commands (validate, inspect,
 * convert, list, search, diff) load no HTTP server, MCP SDK, store driver,
 * broker client or telemetry exporter. Before stop 28, program.ts imported
 * every command, and `toolcap --version` took 1.2 s and 128 MB.
 */
import { describe, expect, it } from 'vitest';
import { staticClosure } from './static-imports.js';

/**
 * Packages only serving, calling or storing needs. Not listed: jose and
 * rate-limiter-flexible, which `search` loads to name who asked (config/identity.ts
 * builds the authenticator too), and hono, whose HTTPException comes with the
 * /tools parameter parser `list` shares with the API (src/server/problem.ts).
 */
const SERVING_PACKAGES = ['@modelcontextprotocol/sdk', '@hono/node-server', 'pg', 'better-sqlite3', 'nats', '@temporalio/client', 'prom-client', 'openid-client', 'oauth4webapi'];
/** Our serving code; src/server's parameter and problem helpers are shared with the CLI, its app and routes are not. */
const SERVING_SOURCES = ['src/server/app', 'src/server/routes', 'src/server/console', 'src/server/listen', 'src/server/mcp-lane', 'src/server/openapi', 'src/store/postgres', 'src/store/open', 'src/runtime/telemetry', 'src/runtime/tracing', 'src/runtime/dispatch/jetstream', 'src/runtime/dispatch/temporal', 'src/mcp/server', 'src/mcp/http', 'src/mcp/stdio', 'src/mcp/clients'];

describe('toolcap startup: what each command loads before it runs', () => {
  it('the program itself: commander, the output helpers and a few constants', async () => {
    const { sources, packages } = await staticClosure('src/cli/program.ts');
    expect(packages).toEqual(['commander', 'yaml']);
    // no reader, dialect, registry, runtime or server code: only constants and the CLI's own helpers
    expect(sources.filter((s) => /^src\/(load|registry|query|server|mcp|store|source)\//.test(s))).toEqual([]);
    expect(sources.length).toBeLessThanOrEqual(12);
  }, 60_000);

  it.each(['validate', 'inspect', 'convert', 'query', 'diff'])('%s loads no serving, storing or telemetry code', async (command) => {
    const { sources, packages } = await staticClosure(`src/cli/${command}.ts`);
    expect(sources.length).toBeGreaterThan(20); // it did follow imports
    expect(packages.filter((p) => SERVING_PACKAGES.includes(p) || p.startsWith('@opentelemetry/'))).toEqual([]);
    expect(sources.filter((s) => SERVING_SOURCES.some((prefix) => s.startsWith(prefix)))).toEqual([]);
  }, 60_000);
});
