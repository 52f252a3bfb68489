/**
 * Diagnostics are data: every problem toolcap finds in user input is one of
 * these, with a stable code, never an exception.
 * @module
 */

/** Severity, least to most severe. */
export const SEVERITIES = ['info', 'warning', 'error'] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * Every diagnostic code toolcap emits, with its default severity.
 * Codes are stable: tooling may match on them. Wording is not.
 */
export const DIAGNOSTIC_CODES = {
  // reading
  PATH_NOT_FOUND: 'error',
  FILE_UNREADABLE: 'error',
  FILE_TOO_LARGE: 'error',
  FILE_EMPTY: 'error',
  PARSE_ERROR: 'error',
  DUPLICATE_KEY: 'error',
  YAML_ALIAS_LIMIT: 'error',
  NESTING_TOO_DEEP: 'error',
  UNSAFE_KEY: 'warning',
  UNKNOWN_FORMAT: 'error',
  NOT_A_MANIFEST: 'info',
  UNKNOWN_DIALECT: 'error',
  // shape
  SCHEMA_VIOLATION: 'error',
  TYPE_MISMATCH: 'error',
  MISSING_FIELD: 'error',
  UNKNOWN_FIELD: 'warning',
  UNKNOWN_ENUM_VALUE: 'error',
  INVALID_VALUE: 'error',
  SCHEMA_REPAIRED: 'warning',
  UNKNOWN_SCHEMA_VERSION: 'warning',
  REF_NOT_FOUND: 'error',
  // names
  INVALID_TOOL_NAME: 'error',
  INVALID_CAPABILITY_NAME: 'error',
  DUPLICATE_TOOL: 'error',
  DUPLICATE_ENTRY: 'error',
  OVERRIDE_UNMATCHED: 'info',
  AUDIT_STATUS_GATED: 'info',
  UNKNOWN_REFERENCE: 'warning',
  UNSERVED_SKILL: 'warning',
  // claims
  CONTRADICTORY_CLAIM: 'error',
  RETRY_NOT_IDEMPOTENT: 'error',
  SYSTEM_WITHOUT_APPROVAL: 'warning',
  WRITE_WITHOUT_ROLLBACK: 'warning',
  INVALID_JSON_SCHEMA: 'error',
  PATTERN_BACKTRACKS: 'warning',
  EVIDENCE_CONTRADICTS_CLAIM: 'warning',
  EFFECTS_TIGHTENED: 'info',
  // containment
  MODULE_PATH_REFUSED: 'error',
  MODULE_NOT_IMPORTABLE: 'error',
  PYTHON_UNAVAILABLE: 'warning',
  SQL_REFUSED: 'error',
  // a tool's settings in the config (tools.<name>): the tool is unavailable, the rest runs
  TOOL_CONFIGURATION_INVALID: 'warning',
  // reloads: the build worker failed, crashed or exited; the main thread built the catalog itself
  BUILD_WORKER_FAILED: 'info',
} as const satisfies Record<string, Severity>;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

/** A place in a source file. Lines and columns are 1-based. */
export interface Location {
  file?: string;
  line?: number;
  column?: number;
  /** RFC 6901 JSON pointer into the source document. */
  pointer?: string;
}

/** One finding. */
export interface Diagnostic extends Location {
  code: DiagnosticCode;
  severity: Severity;
  message: string;
  hint?: string;
  /**
   * For MISSING_FIELD: the key that is missing, in the source format's own
   * words, in the object at `pointer` (e.g. `surface` of a Xena tool). Lets
   * tools act on the finding without reading the message (`toolcap convert --set`).
   */
  field?: string;
  /** Other places that belong to the same finding (e.g. the first of two duplicates). */
  related?: Array<Location & { message: string }>;
}

/** Build a diagnostic with the code's default severity unless one is given. */
export function diagnostic(
  code: DiagnosticCode,
  message: string,
  extra: Partial<Omit<Diagnostic, 'code' | 'message'>> = {},
): Diagnostic {
  return { code, severity: DIAGNOSTIC_CODES[code], message, ...extra };
}

/** Does the list contain an error (or, when strict, a warning)? */
export function hasFailures(diagnostics: readonly Diagnostic[], strict = false): boolean {
  return diagnostics.some((d) => d.severity === 'error' || (strict && d.severity === 'warning'));
}

/** One collator for every comparison (what `localeCompare` does, without building one per call). */
const TEXT_ORDER = new Intl.Collator();

/** Stable order: file, line, column, then code. */
export function sortDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics.sort(
    (a, b) =>
      TEXT_ORDER.compare(a.file ?? '', b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0) ||
      TEXT_ORDER.compare(a.code, b.code),
  );
}

/** Escape one reference token for a JSON pointer (RFC 6901). */
function escapePointerToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Join tokens onto a JSON pointer. */
export function joinPointer(base: string, ...tokens: Array<string | number>): string {
  return tokens.reduce<string>((p, t) => `${p}/${escapePointerToken(t)}`, base);
}

/** Split a JSON pointer into its unescaped tokens. */
export function splitPointer(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return pointer === '/' ? [''] : [];
  // nothing escaped (almost every pointer): the tokens as split, no unescaping pass
  if (!pointer.includes('~')) return pointer.slice(1).split('/');
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}
