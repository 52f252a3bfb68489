/**
 * The client transport toolcap starts stdio MCP servers with: the SDK's
 * newline-delimited JSON-RPC over the child's stdin/stdout (its
 * `ReadBuffer` and `serializeMessage`), but the child is started contained
 * (../runtime/containment/process.ts): as the leader of its own process
 * group, with exactly the environment it is given. The SDK's
 * `StdioClientTransport` starts servers in toolcap's own group and signals
 * only the server itself, so whatever the server started (an `npx` wrapper's
 * node, a language server, `sleep 300 &`) outlived it.
 *
 * The whole group is ended when the transport is closed (close, reconnect)
 * and when the server exits on its own (a crash): the server's leftovers
 * must not outlive it either. `onclose` fires once the leader has exited and
 * the group has been ended.
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { envAllowList } from '../runtime/containment/child-env.js';
import { containedSpawn, DEFAULT_KILL_GRACE_MS, killGroup } from '../runtime/containment/process.js';
import type { McpServerConfig } from './config.js';

/** How long a closing server may take to exit by itself once its stdin ends, before its group is signalled. */
export const STDIN_END_GRACE_MS = 2000;

/**
 * A stdio server's environment: an allow-list, never toolcap's whole
 * environment (which holds the store's password, API tokens…): the base
 * every program needs (PATH, HOME, LANG…) plus exactly the variables the
 * server's config sets in `env`.
 * @example serverEnv({ env: { A: '1' } }, { PATH: '/bin', PGPASSWORD: 'x' }) // { PATH: '/bin', A: '1' }
 */
export function serverEnv(config: Pick<McpServerConfig, 'env'>, base: Readonly<Record<string, string | undefined>> = process.env): Record<string, string> {
  return { ...envAllowList({ base, declared: [] }), ...config.env };
}

/** How to start one stdio MCP server. */
export interface ContainedStdioOptions {
  command: string;
  args?: readonly string[];
  /** The server's whole environment (build it with `envAllowList`); nothing of toolcap's is added. */
  env: Record<string, string>;
  cwd?: string;
  /** Each chunk the server writes to stderr. @default dropped */
  onStderr?: (text: string) => void;
  /** SIGTERM -> SIGKILL delay when the group is ended. @default DEFAULT_KILL_GRACE_MS */
  killGraceMs?: number;
  /** Wait for the server to exit after its stdin ends, before signalling. @default STDIN_END_GRACE_MS */
  stdinEndGraceMs?: number;
}

/**
 * An SDK `Transport` over a contained child process.
 * @example
 * const transport = new ContainedStdioClientTransport({ command: 'npx', args: ['-y', 'server'], env: envAllowList({ declared: [] }) });
 * await new Client({ name: 'toolcap', version: '1' }).connect(transport);
 */
export class ContainedStdioClientTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;

  readonly #options: ContainedStdioOptions;
  readonly #readBuffer = new ReadBuffer();
  #child: ChildProcess | undefined;
  /** Resolves once the leader has exited and its group has been ended. */
  #ended: Promise<void> | undefined;
  #closed = false;

  constructor(options: ContainedStdioOptions) {
    this.#options = options;
  }

  /** The server's pid (and process group id), once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Start the server; rejects when it cannot be started (ENOENT for a missing command). */
  start(): Promise<void> {
    if (this.#child) return Promise.reject(new Error('ContainedStdioClientTransport already started'));
    const o = this.#options;
    const { child } = containedSpawn(o.command, o.args ?? [], { env: o.env, ...(o.cwd !== undefined ? { cwd: o.cwd } : {}), stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child = child;
    // 'exit', not 'close': a grandchild holding the inherited stdout keeps 'close' from ever firing
    this.#ended = new Promise<void>((resolve) => {
      child.once('exit', () => {
        void killGroup(child, { graceMs: o.killGraceMs ?? DEFAULT_KILL_GRACE_MS })
          .catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))))
          .finally(() => {
            this.#readBuffer.clear();
            resolve();
            this.onclose?.();
          });
      });
    });
    child.stdout?.on('data', (chunk: Buffer) => this.#read(chunk));
    child.stderr?.on('data', (chunk: Buffer) => o.onStderr?.(chunk.toString()));
    for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.on('error', (error: Error) => this.onerror?.(error));
    return new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
        // a child that never started fires no 'exit'
        if (child.pid === undefined) {
          this.#ended = Promise.resolve();
          this.onclose?.();
        }
      });
    });
  }

  #read(chunk: Buffer): void {
    try {
      this.#readBuffer.append(chunk);
    } catch (error) {
      // a line past the SDK's buffer limit: the stream cannot be resynchronised, so the server is ended
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#readBuffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#closed || !stdin.writable) return Promise.reject(new Error('Not connected'));
    return new Promise<void>((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /**
   * End the server's stdin, give it {@link STDIN_END_GRACE_MS} to exit, then
   * end its whole group (SIGTERM, SIGKILL after the grace). Resolves once
   * no member of the group runs.
   */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || this.#closed) return this.#ended;
    this.#closed = true;
    try {
      child.stdin?.end();
    } catch {
      // already gone
    }
    const ended = this.#ended ?? Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'grace'>((resolve) => {
      timer = setTimeout(() => resolve('grace'), this.#options.stdinEndGraceMs ?? STDIN_END_GRACE_MS);
    });
    const first = await Promise.race([ended, graceOver]);
    clearTimeout(timer);
    // the leader still runs: end the group; its 'exit' then ends whatever is left and fires onclose
    if (first === 'grace') await killGroup(child, { graceMs: this.#options.killGraceMs ?? DEFAULT_KILL_GRACE_MS });
    await ended;
  }
}
