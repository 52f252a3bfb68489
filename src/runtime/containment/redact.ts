/**
 * The one redaction step for everything that leaves the process (problem
 * bodies, audit rows, spans, logs, metrics labels): known secret values and
 * common token shapes become `[REDACTED]` before anything is written.
 *
 * Known secrets are the values of the environment variables and config
 * secrets that manifests or config name. A value shorter than
 * {@link MIN_SECRET_LENGTH} characters is not searched for: `on`, `1234` or
 * `admin` would blank out unrelated text everywhere, and such a value is no
 * secret worth the name (the token shapes still apply).
 *
 * Objects are copied, never mutated; a property whose name says it holds a
 * credential (`password`, `apiKey`, `authorization`…) is redacted whole.
 * @module
 */

/** What replaces a secret. */
export const REDACTED = '[REDACTED]';

/** Shortest secret value searched for, in characters. */
export const MIN_SECRET_LENGTH = 6;

/** Object keys whose redacted form a redactor remembers (they repeat: span attributes, record fields), and the longest one kept. */
const KEY_MEMO_SIZE = 4096;
const KEY_MEMO_LENGTH = 128;

/** Deepest level {@link Redactor.redact} walks; deeper values become `[Truncated]`. @default 32 */
export const MAX_REDACT_DEPTH = 32;

/** Token shapes redacted in every text: [pattern, replacement]. */
const TOKEN_SHAPES: ReadonlyArray<[RegExp, string]> = [
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g, REDACTED], // a cut-off block too
  [/\b(Bearer|Basic|Token|Digest)(\s+)[A-Za-z0-9._~+/=-]{8,}/gi, `$1$2${REDACTED}`],
  [/\btcap_([0-9a-f]{16})_[A-Za-z0-9_-]{8,}/g, `tcap_$1_${REDACTED}`], // the key id is no secret and says which key leaked
  [/\btcap_(?![0-9a-f]{16}_\[REDACTED\])[A-Za-z0-9_-]{8,}/g, REDACTED],
  [/\bsk-(?:[a-z]+-)?[A-Za-z0-9_-]{8,}/g, REDACTED], // OpenAI, Anthropic, sk-live-…
  [/\b[spr]k_(?:live|test)_[A-Za-z0-9]{8,}/g, REDACTED], // Stripe
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, REDACTED],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}/g, REDACTED],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, REDACTED],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, REDACTED],
  // JWT (an unsigned one too); user:password@ in URLs. Each starts only where no earlier start of its own in the same run
  // of its characters is ('eyJab-eyJab-…', 'a.a.a.…'): a later one would fail as that one did, after scanning to the
  // run's end again (80 KB of either took seconds, quadratic)
  [/\b(?<!\beyJ[A-Za-z0-9_-]*?)eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, REDACTED],
  [/\b(?<!\b[a-z][a-z0-9+.-]*?)([a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:)[^/\s@]+@/gi, `$1${REDACTED}@`],
  [/((?:^|[?&;\s"'])(?:password|passwd|pwd|pass|secret|client_secret|token|access_token|refresh_token|id_token|api_key|apikey|api-key|auth)=)[^&\s#;"']+/gi, `$1${REDACTED}`],
];

/**
 * Whether a text may hold any token shape: one scan per flag set (two)
 * instead of one per shape, for the common text that holds none. The shapes
 * of one flag set joined as one alternation match wherever one of them
 * does, so when no screen finds anything no shape matches, no replacement
 * would change the text and the shapes are skipped; when one finds
 * something, every shape runs in order as before. The shapes keep their own
 * flags: made case-insensitive, a negative lookahead (the second `tcap_`
 * shape's) would match more and its shape less, and
 * `tcap_0123456789ABCDEF_[REDACTED]` would pass the screen unredacted.
 * A shape must not use a backreference (`\1`): joined, its group would be
 * another's (the table test of every shape would show it).
 */
const TOKEN_SCREENS: readonly RegExp[] = (() => {
  const byFlags = new Map<string, string[]>();
  for (const [pattern] of TOKEN_SHAPES) {
    const flags = pattern.flags.replace('g', '');
    byFlags.set(flags, [...(byFlags.get(flags) ?? []), `(?:${pattern.source})`]);
  }
  return [...byFlags].map(([flags, sources]) => new RegExp(sources.join('|'), flags));
})();

/** Property names whose values are credentials, whatever they look like. */
const CREDENTIAL_KEY = /^(?:password|passwd|pwd|secret|client_?secret|api[_-]?key|access[_-]?token|refresh[_-]?token|id[_-]?token|token|authorization|proxy[_-]?authorization|cookie|set[_-]?cookie|private[_-]?key|x[_-]api[_-]key)$/i;

/** Options of {@link createRedactor}. */
export interface RedactorOptions {
  /** Secret values to find anywhere (env var values, config secrets). Empty and short ones are skipped. */
  secrets?: Iterable<string | undefined>;
  /** More patterns; each match becomes `[REDACTED]` (the global flag is added). */
  patterns?: readonly RegExp[];
  /** @default MAX_REDACT_DEPTH */
  maxDepth?: number;
}

/** Redacts texts and values. */
export interface Redactor {
  /** A copy of `value` with every string redacted (deep; cycles become `[Circular]`). */
  redact<T>(value: T): T;
  /** `text` with secrets and token shapes replaced. */
  redactText(text: string): string;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * A redactor for the given secrets.
 * @example
 * const { redactText } = createRedactor({ secrets: [process.env.PGPASSWORD] });
 * redactText('auth failed with token sk-live-4f9a8b7c6d5e'); // 'auth failed with token [REDACTED]'
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const values = new Set<string>();
  for (const s of options.secrets ?? []) {
    if (s === undefined || s.length < MIN_SECRET_LENGTH) continue;
    values.add(s);
    // the same secret as it appears in a URL or a JSON text
    values.add(encodeURIComponent(s));
    values.add(JSON.stringify(s).slice(1, -1));
  }
  const longestFirst = [...values].sort((a, b) => b.length - a.length).map(escape);
  const secretPattern = longestFirst.length > 0 ? new RegExp(longestFirst.join('|'), 'g') : undefined;
  const extra = (options.patterns ?? []).map((p) => new RegExp(p.source, p.flags.includes('g') ? p.flags : `${p.flags}g`));
  const maxDepth = options.maxDepth ?? MAX_REDACT_DEPTH;

  const redactText = (text: string): string => {
    let out = secretPattern ? text.replace(secretPattern, REDACTED) : text;
    if (TOKEN_SCREENS.some((screen) => screen.test(out))) for (const [pattern, replacement] of TOKEN_SHAPES) out = out.replace(pattern, replacement);
    for (const pattern of extra) out = out.replace(pattern, REDACTED);
    return out;
  };

  // keys repeat (span attributes, record fields): each is redacted once; the memo is dropped whole when it grows past a
  // bound, and a long key (a caller's, say) is never kept, so what it holds stays small whatever callers send
  const keyNames = new Map<string, string>();
  const redactKey = (key: string): string => {
    if (key.length > KEY_MEMO_LENGTH) return redactText(key);
    let name = keyNames.get(key);
    if (name === undefined) {
      name = redactText(key);
      if (keyNames.size >= KEY_MEMO_SIZE) keyNames.clear();
      keyNames.set(key, name);
    }
    return name;
  };
  /**
   * Set a property of a copy under its key redacted (a map keyed by tokens, a secret used as a name). A key that
   * redaction changed, or one that meets such a key, gets `#2`, `#3`… when its name is taken, so no value is lost;
   * other keys are set as they were (an error's own `name` still replaces the copy's). `__proto__` stays a property.
   * @returns the names that redaction made in this copy (undefined until there is one)
   */
  const put = (copy: Record<string, unknown>, key: string, v: unknown, renamed: Set<string> | undefined): Set<string> | undefined => {
    let name = redactKey(key);
    if (name !== key || renamed?.has(name)) {
      if (Object.hasOwn(copy, name)) {
        let n = 2;
        while (Object.hasOwn(copy, `${name}#${n}`)) n++;
        name = `${name}#${n}`;
      }
      (renamed ??= new Set()).add(name);
    }
    if (name === '__proto__') Object.defineProperty(copy, name, { value: v, enumerable: true, writable: true, configurable: true });
    else copy[name] = v;
    return renamed;
  };

  const walk = (value: unknown, depth: number, ancestors: Set<object>): unknown => {
    if (typeof value === 'string') return redactText(value);
    if (typeof value !== 'object' || value === null) return value;
    if (ancestors.has(value)) return '[Circular]';
    if (depth >= maxDepth) return '[Truncated]';
    ancestors.add(value);
    try {
      if (Array.isArray(value)) return value.map((v) => walk(v, depth + 1, ancestors));
      if (value instanceof Error) {
        const copy: Record<string, unknown> = { name: value.name, message: redactText(value.message) };
        let renamed: Set<string> | undefined;
        for (const [k, v] of Object.entries(value)) renamed = put(copy, k, CREDENTIAL_KEY.test(k) ? REDACTED : walk(v, depth + 1, ancestors), renamed);
        return copy;
      }
      if (!isPlain(value)) return value; // dates, buffers, class instances: not text, left as they are
      const copy: Record<string, unknown> = {};
      let renamed: Set<string> | undefined;
      for (const [k, v] of Object.entries(value)) {
        renamed = put(copy, k, CREDENTIAL_KEY.test(k) && v !== null && v !== undefined && v !== '' ? REDACTED : walk(v, depth + 1, ancestors), renamed);
      }
      return copy;
    } finally {
      ancestors.delete(value);
    }
  };

  return {
    redact: <T>(value: T): T => walk(value, 0, new Set()) as T,
    redactText,
  };
}

/**
 * An untrusted party's text (an upstream's error message, a server's failure
 * text) redacted and then cut to `limit` characters, saying how much was left
 * out. The order is the point: cut first, a secret on the cut keeps all but its
 * last characters, which neither its known value nor a token shape matches any
 * more, and the redaction that runs later (problem bodies, audit rows) lets it
 * through; a caller pads its input to put it there on an upstream that echoes it.
 * @example redactedExcerpt(`${'x'.repeat(295)} ghp_…`, redactor.redactText, 300) // 'xxx… [REDACTED]… (n more characters)'
 */
export function redactedExcerpt(text: string, redact: (text: string) => string, limit: number): string {
  const safe = redact(text);
  return safe.length > limit ? `${safe.slice(0, limit)}… (${safe.length - limit} more characters)` : safe;
}
