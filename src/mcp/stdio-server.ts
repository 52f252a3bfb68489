/**
 * The server transport of `toolcap mcp serve`: newline-delimited JSON-RPC
 * on stdin/stdout, like the SDK's `StdioServerTransport`, but a bad line is
 * answered and skipped instead of ending the session. The SDK's transport
 * closes itself when a line passes its buffer limit (`mcp serve` exited 0
 * on a line over 10 MiB) and answers nothing to a line that is not JSON.
 * Here:
 * - a line longer than {@link MAX_STDIO_LINE_BYTES} is dropped as it
 *   arrives (never buffered whole) and answered with JSON-RPC Invalid
 *   Request, `data.code` REQUEST_TOO_LARGE;
 * - a line that is not JSON is answered with Parse error;
 * - a JSON value that is not a JSON-RPC message is answered with Invalid
 *   Request (with its id when it has one), unless it looks like a response;
 * in each case `onerror` hears of it, and the next line is served.
 * @module
 */
import type { Readable, Writable } from 'node:stream';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/** Longest accepted input line, in bytes (the SDK's own buffer limit). @default 10 MiB */
export const MAX_STDIO_LINE_BYTES = 10 * 1024 * 1024;

/** Options of {@link BoundedStdioServerTransport}. */
export interface BoundedStdioOptions {
  /** Longest accepted input line, bytes. @default MAX_STDIO_LINE_BYTES */
  maxLineBytes?: number;
}

const NEWLINE = 0x0a;

/**
 * An SDK server `Transport` on two streams that survives bad input.
 * @example
 * await gateway.server.connect(new BoundedStdioServerTransport(process.stdin, process.stdout));
 */
export class BoundedStdioServerTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;

  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #maxLineBytes: number;
  #chunks: Buffer[] = [];
  #size = 0;
  /** The current line passed the limit: the rest of it is dropped. */
  #skipping = false;
  #started = false;

  constructor(stdin: Readable = process.stdin, stdout: Writable = process.stdout, options: BoundedStdioOptions = {}) {
    this.#stdin = stdin;
    this.#stdout = stdout;
    this.#maxLineBytes = options.maxLineBytes ?? MAX_STDIO_LINE_BYTES;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('BoundedStdioServerTransport already started');
    this.#started = true;
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('error', this.#onError);
  }

  readonly #onError = (error: Error): void => {
    this.onerror?.(error);
  };

  readonly #onData = (chunk: Buffer | string): void => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let from = 0;
    for (let nl = data.indexOf(NEWLINE, from); nl !== -1; nl = data.indexOf(NEWLINE, from)) {
      this.#take(data.subarray(from, nl));
      this.#endLine();
      from = nl + 1;
    }
    this.#take(data.subarray(from));
  };

  /** Keep part of the current line, or start dropping it once it passes the limit. */
  #take(part: Buffer): void {
    if (this.#skipping || part.length === 0) return;
    if (this.#size + part.length > this.#maxLineBytes) {
      this.#skipping = true;
      this.#chunks = [];
      this.#size = 0;
      return;
    }
    this.#chunks.push(part);
    this.#size += part.length;
  }

  #endLine(): void {
    if (this.#skipping) {
      this.#skipping = false;
      this.#refuse(null, ErrorCode.InvalidRequest, `Request too large: a line over ${this.#maxLineBytes} bytes was skipped.`, { code: 'REQUEST_TOO_LARGE', maxBytes: this.#maxLineBytes });
      return;
    }
    const line = Buffer.concat(this.#chunks, this.#size).toString('utf8').replace(/\r$/, '');
    this.#chunks = [];
    this.#size = 0;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.#refuse(null, ErrorCode.ParseError, 'Parse error: the line is not JSON.');
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (parsed.success) {
      this.onmessage?.(parsed.data);
      return;
    }
    const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
    const message = 'Invalid Request: the line is not a JSON-RPC 2.0 message.';
    // a malformed answer to one of our requests has nobody to answer to
    if ('result' in v || 'error' in v) this.onerror?.(new Error(message));
    else this.#refuse(typeof v['id'] === 'string' || typeof v['id'] === 'number' ? v['id'] : null, ErrorCode.InvalidRequest, message);
  }

  /** Answer a line that could not be served, and tell `onerror`. */
  #refuse(id: RequestId | null, code: number, message: string, data?: Record<string, unknown>): void {
    this.onerror?.(new Error(message));
    // id null is what JSON-RPC 2.0 asks for when the request's id is unknown; the SDK's types do not allow it
    const answer = { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } } as unknown as JSONRPCMessage;
    this.send(answer).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
  }

  async close(): Promise<void> {
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('error', this.#onError);
    // stdin may be shared: pause it only when nobody else reads it
    if (this.#stdin.listenerCount('data') === 0) this.#stdin.pause();
    this.#chunks = [];
    this.#size = 0;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.#stdout.write(serializeMessage(message))) resolve();
      else this.#stdout.once('drain', resolve);
    });
  }
}
