/**
 * Helpers for the MCP gateway tests: a temp copy of the runtime examples
 * (with an ops-only tool), a registry + store + runtime over it, in-memory
 * SDK clients, small readers of results, and a client transport over a pair
 * of in-process streams (for `toolcap mcp serve`).
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError, type CallToolResult, type JSONRPCMessage, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { ERROR_META_KEY } from '../../src/mcp/call-results.js';
import type { Gateway } from '../../src/mcp/server.js';
import { Registry, type ReloadEvent } from '../../src/registry/registry.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { Runtime, type RuntimeOptions } from '../../src/runtime/runtime.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';

const temps: string[] = [];

export function tempDir(prefix = 'toolcap-mcp-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

export function removeTemps(): void {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
}

/**
 * A temp copy of examples/manifests/toolcap (with its providers), at
 * `<root>/examples/manifests/toolcap` so notes.mjs writes inside `<root>`.
 */
export function copyExamples(): { root: string; manifests: string } {
  const root = tempDir();
  const manifests = join(root, 'examples', 'manifests', 'toolcap');
  mkdirSync(manifests, { recursive: true });
  cpSync('examples/manifests/toolcap', manifests, { recursive: true });
  return { root, manifests };
}

/** A toolcap manifest file of the given tools (JSON is YAML). */
export function writeManifest(file: string, tools: unknown[]): void {
  writeFileSync(file, JSON.stringify({ toolcap: 1, tools }, null, 2));
}

/**
 * An env serving one read tool, `slow.wait`, a module that answers after
 * `waitMs`: long enough for a client to hang up mid-call.
 */
export async function slowToolEnv(waitMs: number): Promise<Env> {
  const dir = tempDir();
  writeFileSync(join(dir, 'slow.mjs'), `export async function slow() { await new Promise((r) => setTimeout(r, ${waitMs})); return { ok: true }; }\n`);
  writeManifest(join(dir, 'slow.yaml'), [
    { name: 'slow.wait', description: 'Waits a while.', version: '1.0.0', effects: { mode: 'read', sideEffects: 'none' }, inputSchema: { type: 'object' }, providers: [{ name: 'local', priority: 0, config: { type: 'module', module: './slow.mjs', export: 'slow' } }] },
  ]);
  return openEnv([dir]);
}

export interface Env {
  registry: Registry;
  store: Store;
  runtime: Runtime;
  /** Told of every registry reload. */
  onReload: ((event: ReloadEvent) => void) | undefined;
  close(): Promise<void>;
}

const envs: Env[] = [];

/** A started registry over `paths`, an SQLite store in a temp folder and a runtime with the real provider types (and `runtimeOptions`). */
export async function openEnv(paths: string[], runtimeOptions: Partial<RuntimeOptions> = {}): Promise<Env> {
  const env = {} as Env;
  env.onReload = undefined;
  env.registry = new Registry({ paths, onReload: (e) => env.onReload?.(e) });
  const first = await env.registry.start();
  if (first.kind !== 'reloaded') throw new Error(`registry did not load: ${JSON.stringify(first)}`);
  env.store = await openSqliteStore(join(tempDir('toolcap-mcp-store-'), 'toolcap.db'));
  env.runtime = new Runtime({ registry: env.registry, store: env.store, providers: new ProviderTypes(), retryBaseMs: 0, onWarning: () => undefined, ...runtimeOptions });
  env.close = async () => {
    await env.runtime.close();
    await env.registry.close();
    await env.store.close();
  };
  envs.push(env);
  return env;
}

const clients: Client[] = [];
const gateways: Gateway[] = [];

/** An SDK client connected in memory to the gateway. */
export async function connect(gateway: Gateway, options: ClientOptions = {}, info = { name: 'test-client', version: '1.0.0' }): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gateway.server.connect(serverSide);
  const client = new Client(info, options);
  await client.connect(clientSide);
  clients.push(client);
  gateways.push(gateway);
  return client;
}

export function track(client: Client): Client {
  clients.push(client);
  return client;
}

/** Close every client, gateway and env made by these helpers, then remove temp folders. */
export async function closeAll(): Promise<void> {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  for (const g of gateways.splice(0)) await g.close().catch(() => undefined);
  for (const e of envs.splice(0)) await e.close().catch(() => undefined);
  removeTemps();
}

/** Resolve with the promise, or reject when it takes longer than `ms` (so a missing event fails instead of hanging). */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A client transport over two streams: newline-delimited JSON-RPC, as the
 * SDK's stdio transports speak it, without spawning a process.
 */
export class StreamClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #buffer = new ReadBuffer();
  #closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
  ) {}

  readonly #ondata = (chunk: Buffer) => {
    this.#buffer.append(chunk);
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) break;
      this.onmessage?.(message);
    }
  };

  async start(): Promise<void> {
    this.input.on('data', this.#ondata);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.output.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.input.off('data', this.#ondata);
    this.output.end();
    this.onclose?.();
  }
}

/** A persona-scoped tool for the "ops" persona, run by the examples' text module. */
export const OPS_TOOL = {
  name: 'ops.restart',
  version: '2.0.0',
  description: 'Restart a service (ops only).',
  scope: { personas: ['ops'] },
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  effects: { mode: 'write', sideEffects: 'system', risk: 'high', reversible: 'none' },
  execution: { timeoutSec: 5, retryClass: 'never', idempotent: false },
  approval: { required: false },
  capabilities: ['service.restart'],
  providers: [{ name: 'local', priority: 0, config: { type: 'module', module: './providers/text.mjs', export: 'reverse' } }],
};

/** The runtime examples plus {@link OPS_TOOL}, loaded into an env. */
export async function examplesEnv(runtimeOptions: Partial<RuntimeOptions> = {}): Promise<{ root: string; manifests: string; env: Env }> {
  const { root, manifests } = copyExamples();
  writeManifest(join(manifests, 'ops.yaml'), [OPS_TOOL]);
  const env = await openEnv([manifests], runtimeOptions);
  return { root, manifests, env };
}

/** The first text content of a tool result. */
export const textOf = (r: unknown) => ((r as CallToolResult).content[0] as { type: 'text'; text: string }).text;
/** The `_meta["toolcap.dev/error"]` block of a tool result ({} when absent). */
export const errorMeta = (r: unknown) => ((r as CallToolResult)._meta?.[ERROR_META_KEY] ?? {}) as Record<string, unknown>;

/** The McpError a request fails with (fails the test when it succeeds or fails otherwise). */
export async function rejection(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error('expected the request to fail');
}

/** Every page of `tools/list`, and how many pages it took. */
export async function listAll(client: Client): Promise<{ tools: McpTool[]; pages: number }> {
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined && pages < 100);
  return { tools, pages };
}
