/**
 * The canonical example manifests (examples/manifests/toolcap) copied to a
 * temp folder and served the way `serve` serves them: a registry, an SQLite
 * store, a runtime and the MCP gateway behind the HTTP API, for tests that
 * look at what a call leaves behind (metrics, spans, selections).
 */
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { expect } from 'vitest';
import { mcpHttpHandler, type McpHttpOptions } from '../../src/mcp/http.js';
import { Registry } from '../../src/registry/registry.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { Runtime, type RuntimeOptions } from '../../src/runtime/runtime.js';
import { createApi } from '../../src/server/app.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { folder } from './helpers.js';

export interface ExampleStack {
  registry: Registry;
  store: Store;
  runtime: Runtime;
  mcp: ReturnType<typeof mcpHttpHandler>;
  app: Hono;
  /** Closes the gateway, runtime, registry and store, in that order (the folder goes with cleanFolders). */
  close(): Promise<void>;
}

/** Opens the stack in a folder named after `prefix`; `runtime` and `mcp` add to the options given here. */
export async function exampleStack(prefix: string, extra: { runtime?: Partial<RuntimeOptions>; mcp?: Partial<McpHttpOptions> } = {}): Promise<ExampleStack> {
  const root = folder(prefix);
  const manifests = join(root, 'examples', 'manifests', 'toolcap');
  mkdirSync(manifests, { recursive: true });
  cpSync('examples/manifests/toolcap', manifests, { recursive: true });
  const registry = new Registry({ paths: [manifests] });
  expect((await registry.start()).kind).toBe('reloaded');
  const store = await openSqliteStore(join(root, 'store', 'toolcap.db'));
  const runtime = new Runtime({ registry, store, providers: new ProviderTypes(), onWarning: () => undefined, ...extra.runtime });
  const mcp = mcpHttpHandler({ registry, runtime, ...extra.mcp });
  const app = createApi(registry, { runtime, mcp });
  return {
    registry,
    store,
    runtime,
    mcp,
    app,
    async close() {
      await mcp.close();
      await runtime.close();
      await registry.close();
      await store.close();
    },
  };
}
