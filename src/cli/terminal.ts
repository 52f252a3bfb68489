/**
 * Untrusted text for a person at a terminal: redacted, then one line, its
 * control characters escaped ({@link logLine}). Its own module, not io.ts:
 * the program loads io.ts at startup, and only the commands that print what
 * others wrote need the redactor.
 * @module
 */
import { createRedactor, type Redactor } from '../runtime/containment/redact.js';
import { logLine } from './io.js';

/** The token shapes (Bearer, sk-, ghp_, JWTs, ...): what a printer redacts with when it has no runtime (`--server`). */
export const SHAPES: Redactor = createRedactor();

/**
 * Text an untrusted party wrote, for the terminal: an approver's note, an
 * approval's reason, an audit row's actor, a server's problem detail, a task
 * title a tool returned, an MCP Registry entry's description. Redacted (the
 * token shapes, or the runtime's redactor with its known secrets where there
 * is one) and then one line ({@link logLine}), so an ANSI escape cannot
 * rewrite the operator's terminal nor a newline forge a line.
 * @example untrusted('ok\u001b[2J') // 'ok\\u001b[2J'
 */
export function untrusted(text: unknown, redactor: Redactor = SHAPES): string {
  return logLine(redactor.redactText(typeof text === 'string' ? text : String(text)));
}

/**
 * What JSON text leaves raw that a terminal may act on: DEL, C1 (U+009B is CSI), the Unicode line and paragraph
 * separators, and the bidirectional embeddings, overrides and isolates (U+202E shows a value reversed): what
 * {@link logLine} escapes, but the C0 characters, which JSON escapes itself.
 */
const JSON_RAW_CONTROL = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * An untrusted value as JSON for the terminal, redacted (deep). JSON escapes
 * C0 (ESC too) but writes DEL, C1 and U+2028/2029 as they are; those are
 * written `\uXXXX`, which is still the same JSON (they occur only in strings).
 * `indent` as JSON.stringify's.
 */
export function untrustedJson(value: unknown, redactor: Redactor = SHAPES, indent?: number): string {
  return terminalJson(redactor.redact(value), indent);
}

/** A value as JSON whose text a terminal cannot act on (see {@link untrustedJson}), not redacted: a call's own result. */
export function terminalJson(value: unknown, indent?: number): string {
  return String(JSON.stringify(value, null, indent)).replace(JSON_RAW_CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
