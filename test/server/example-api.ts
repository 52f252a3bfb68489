/**
 * The runtime examples over HTTP, in process: a temp copy of
 * examples/manifests/toolcap (its notes provider then writes inside the temp
 * folder), a registry over it, a SQLite store and a runtime, and the API
 * (`app.fetch`). Shared by the route tests that call tools.
 */
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { expect } from 'vitest';
import { Registry } from '../../src/registry/registry.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { createApi } from '../../src/server/app.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { folder } from './helpers.js';

export interface ExampleApi {
  root: string;
  /** The copied manifests folder (`<root>/examples/manifests/toolcap`). */
  manifests: string;
  registry: Registry;
  store: Store;
  runtime: Runtime;
  app: Hono;
  /** What the API's onError and the runtime's onWarning were handed. */
  errors: unknown[];
  warnings: string[];
  close(): Promise<void>;
}

/** Start the examples' API; `prepare` may add files to the manifests folder before the registry loads it. */
export async function exampleApi(prefix: string, prepare?: (manifests: string) => void): Promise<ExampleApi> {
  const root = folder(prefix);
  const manifests = join(root, 'examples', 'manifests', 'toolcap');
  mkdirSync(manifests, { recursive: true });
  cpSync('examples/manifests/toolcap', manifests, { recursive: true });
  prepare?.(manifests);
  const registry = new Registry({ paths: [manifests] });
  expect((await registry.start()).kind).toBe('reloaded');
  const store = await openSqliteStore(join(root, 'store', 'toolcap.db'));
  const errors: unknown[] = [];
  const warnings: string[] = [];
  const runtime = new Runtime({ registry, store, providers: new ProviderTypes(), onWarning: (m) => warnings.push(m) });
  const app = createApi(registry, { runtime, onError: (e) => errors.push(e) });
  return {
    root, manifests, registry, store, runtime, app, errors, warnings,
    close: async () => {
      await runtime.close();
      await registry.close();
      await store.close();
    },
  };
}
