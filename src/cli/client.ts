/**
 * The CLI as a client of a running `toolcap serve`: `call`, `approvals` and
 * `audit` with `--server URL` talk HTTP, sending `Authorization: Bearer
 * $TOOLCAP_API_KEY` (nothing when it is unset: a local-mode server needs
 * none). The server decides who is asking and what it may do; a refusal is
 * printed as its problem code (exit 1), an unreachable server exits 2.
 * @module
 */
import { errorMessage } from '../model/errors.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import type { CliIO } from './io.js';
import { untrusted } from './terminal.js';

/** The environment variable holding the API key (or access token) sent to `--server`. */
export const API_KEY_ENV = 'TOOLCAP_API_KEY';

/** An answer with a JSON body, or the exit code after printing why there is none. */
type Answer = { status: number; body: Record<string, unknown> } | ExitCode;

/** Send one request to the server; problems (4xx, 5xx) are printed and become exit 1. */
export async function request(server: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, io: CliIO, options: { body?: unknown; json?: boolean | undefined; headers?: Record<string, string>; /** The body as this exact JSON text (positions in it are kept), instead of `body` stringified. */ text?: string } = {}): Promise<Answer> {
  let url: URL;
  try {
    url = new URL(path, server.endsWith('/') ? server : `${server}/`);
  } catch {
    io.stderr(`toolcap: --server: "${server}" is not a URL (write http://127.0.0.1:4317)\n`);
    return EXIT.USAGE;
  }
  const key = (io.env ?? process.env)[API_KEY_ENV];
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (key !== undefined && key !== '') headers['authorization'] = `Bearer ${key}`;
  const sent = options.text ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
  if (sent !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(url, { method, headers, ...(sent !== undefined ? { body: sent } : {}) });
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    io.stderr(`toolcap: cannot reach ${url.origin}: ${errorMessage(cause ?? error)}\n`);
    return EXIT.USAGE;
  }
  let body: Record<string, unknown>;
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    io.stderr(`toolcap: ${url.origin} answered ${res.status} without a JSON body; is it a toolcap server?\n`);
    return EXIT.FINDINGS;
  }
  if (res.status >= 400) return printProblem(res.status, body, io, options.json);
  return { status: res.status, body };
}

/** A problem body as the direct mode prints a CallError: `toolcap: CODE: detail`, and with --json the error on stdout. */
function printProblem(status: number, body: Record<string, unknown>, io: CliIO, json: boolean | undefined): ExitCode {
  const code = typeof body['code'] === 'string' ? body['code'] : `HTTP_${status}`;
  const detail = typeof body['detail'] === 'string' ? body['detail'] : String(body['title'] ?? '');
  if (json) io.stdout(`${JSON.stringify({ status: 'error', code, message: detail, ...withoutProblemFields(body) }, null, 2)}\n`);
  // what a server answers carries what others wrote (a tool's failure text, a caller's name): one line, redacted (terminal.ts untrusted)
  io.stderr(`toolcap: ${untrusted(code)}: ${untrusted(detail)}\n`);
  // located findings (422 INVALID_TOOL): one line each
  if (!json && Array.isArray(body['diagnostics'])) {
    for (const d of body['diagnostics'] as Array<Record<string, unknown>>) io.stderr(`  ${untrusted([d['pointer'] === undefined ? '' : d['pointer'] || '/', d['line'] === undefined ? '' : `line ${String(d['line'])}:${String(d['column'] ?? '?')}`, `${String(d['severity'])} ${String(d['code'])}: ${String(d['message'])}`].filter(Boolean).join('  '))}
`);
  }
  if (Array.isArray(body['allowed'])) io.stderr(`  personas you may use: ${untrusted((body['allowed'] as string[]).join(', ') || 'none')}\n`);
  if (status === 401) io.stderr(`  set ${API_KEY_ENV} to an API key (toolcap keys create) or an access token\n`);
  return EXIT.FINDINGS;
}

function withoutProblemFields(body: Record<string, unknown>): Record<string, unknown> {
  const { type: _t, title: _ti, status: _s, code: _c, detail: _d, ...rest } = body;
  return rest;
}
