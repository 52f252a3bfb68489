/**
 * Text from untrusted parties written as one line: for the log, the
 * terminal, and a comment the config editor writes into a file. Its home is
 * the model layer so that every layer can use the one escaping (the CLI
 * re-exports it from `cli/io.ts`).
 * @module
 */

/**
 * Line breaks and other control characters (C0 but the tab, DEL, C1, the Unicode line and paragraph separators),
 * and the bidirectional embeddings, overrides and isolates, which make a terminal show text in another order than
 * it is (U+202E turns "gnp.exe" around).
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * A message for the log, or a line for the terminal, as one line: line breaks and other control characters written
 * escaped (`\n`, `\u001b`).
 * The log is text, a message a line, and messages carry what untrusted parties said (an MCP server's error, a
 * caller's tool name, an upstream's answer): a newline in one wrote lines that read as toolcap's own (a reload, an
 * approval), an ANSI escape rewrote the operator's terminal. What the CLI prints of a manifest (diagnostics, inspect)
 * passes here too: the manifest may come from anyone.
 * @example logLine('nope\n[x] reloaded') // 'nope\\n[x] reloaded'
 */
export function logLine(message: string): string {
  return message.replace(CONTROL, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
