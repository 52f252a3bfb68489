/**
 * Evidence about what a tool does, from sources other than its declared
 * effects: the HTTP method of an `http` provider, an explicit empty
 * permission list (`permissions: []`), the hints its server
 * reports (MCP annotations), and the verbs in its name and description.
 *
 * Words are weak evidence. They feed honesty lints and the measured
 * read/write inference; they never loosen a derived value (silence still
 * reads as `write`).
 * @module
 */
import type { Tool } from './schema.js';

/** What one piece of evidence says. `destructive` implies `write`. */
export type Verdict = 'read' | 'write' | 'destructive';

export interface Evidence {
  source: 'http-method' | 'hints' | 'permissions' | 'name' | 'description';
  says: Verdict;
  /** What was seen, e.g. `DELETE`, `readOnlyHint: false`, `"revoke"`. */
  detail: string;
}

/** Verbs that destroy or withdraw something. */
const DESTRUCTIVE = new Set(['delete', 'remove', 'drop', 'destroy', 'purge', 'revoke', 'truncate', 'wipe', 'erase', 'kill', 'terminate', 'uninstall', 'unregister', 'discard', 'unlink', 'rm', 'del']);

/** Verbs that change state somewhere, or send something out. */
const WRITES = new Set([
  'add', 'create', 'new', 'insert', 'register', 'post', 'put', 'patch', 'set', 'update', 'modify', 'edit', 'change', 'rename', 'move',
  'send', 'reply', 'forward', 'publish', 'share', 'invite', 'assign', 'schedule', 'book', 'reserve', 'cancel', 'order', 'buy', 'purchase',
  'pay', 'transfer', 'charge', 'refund', 'upload', 'save', 'store', 'record', 'write', 'append', 'submit', 'apply', 'approve', 'reject',
  'merge', 'commit', 'push', 'deploy', 'install', 'start', 'stop', 'restart', 'run', 'execute', 'exec', 'trigger', 'launch', 'enable',
  'disable', 'close', 'lock', 'unlock', 'mark', 'archive', 'restore', 'import', 'sync', 'subscribe', 'unsubscribe', 'follow', 'unfollow',
  'like', 'star', 'pin', 'unpin', 'mute', 'unmute', 'block', 'unblock', 'ban', 'grant', 'reset', 'notify', 'alert', 'page', 'email',
  'message', 'sms', 'tweet', 'comment', 'vote', 'toggle', 'adjust', 'control', 'rate', 'review', 'dispatch', 'kick', 'leave',
  'join', 'open', 'rerun', 'retry', 'confirm', 'accept', 'decline', 'dismiss', 'resolve', 'reopen', 'upsert', 'mutate',
  'sell', 'withdraw', 'deposit', 'donate', 'redeem',
]);

/** Verbs that only look at things. */
const READS = new Set([
  'get', 'list', 'search', 'find', 'query', 'read', 'fetch', 'retrieve', 'lookup', 'look', 'show', 'view', 'describe', 'check', 'count',
  'browse', 'download', 'export', 'calculate', 'compute', 'convert', 'translate', 'summarize', 'analyze', 'analyse', 'detect', 'recognize',
  'identify', 'classify', 'predict', 'estimate', 'compare', 'validate', 'verify', 'parse', 'render', 'preview', 'explain', 'recommend',
  'inspect', 'diff', 'stat', 'ls', 'cat', 'head', 'tail', 'grep', 'watch', 'poll', 'probe', 'info', 'status', 'test', 'ping', 'echo',
  'monitor', 'evaluate', 'assess', 'measure', 'forecast',
]);

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Split an identifier or sentence into lowercase words (camelCase, snake_case, dots, dashes, slashes). */
export function words(text: string): string[] {
  const out: string[] = [];
  eachWord(text, (w) => {
    out.push(w);
    return false;
  });
  return out;
}

const isUpper = (c: number) => c >= 65 && c <= 90;
const isLowerOrDigit = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
/** Characters outside 7-bit ASCII: their lower-casing is left to {@link wordsByRegex}. */
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Call `visit` with each word of {@link words}, in order, until it returns
 * true. ASCII text is split in one pass without building the whole list (a
 * description's first verb is usually its first word).
 */
function eachWord(text: string, visit: (word: string) => boolean): void {
  if (NON_ASCII.test(text)) {
    for (const w of wordsByRegex(text)) if (visit(w)) return;
    return;
  }
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    const alnum = isUpper(c) || isLowerOrDigit(c);
    if (start >= 0) {
      // a word ends before a separator, at "aB" (camelCase) and at "ABc" (an acronym then a word: "HTMLParser")
      const prev = text.charCodeAt(i - 1);
      const camel = isUpper(c) && (isLowerOrDigit(prev) || (isUpper(prev) && isLowerOrDigit(text.charCodeAt(i + 1)) && !isDigit(text.charCodeAt(i + 1))));
      if (!alnum || camel) {
        if (visit(text.slice(start, i).toLowerCase())) return;
        start = -1;
      }
    }
    if (alnum && start < 0) start = i;
  }
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/** The reference splitting (any text): camel boundaries by regex, lower-cased, split on everything but a-z and 0-9. */
function wordsByRegex(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

/** What a single verb says, if it is one the evidence reader knows: `verdictOf('revoke') // 'destructive'`. */
export function verdictOf(word: string): Verdict | undefined {
  if (DESTRUCTIVE.has(word)) return 'destructive';
  if (WRITES.has(word)) return 'write';
  if (READS.has(word)) return 'read';
  return undefined;
}

/** The longest verb {@link verdictOf} knows: a longer word is no evidence, and is not copied to find that out. */
const LONGEST_VERB = Math.max(...[...DESTRUCTIVE, ...WRITES, ...READS].map((w) => w.length));

/** Where the word {@link nextWord} found ends. */
let wordEnd = 0;

/**
 * The start of the next word of ASCII `text` in [from, end), split as
 * {@link eachWord} splits it, with its end in {@link wordEnd}; -1 when there
 * is none. Resumable at `wordEnd`, and nothing allocated (no visitor per
 * call): the evidence of 10,000 tools is read in one lint.
 */
function nextWord(text: string, from: number, end: number): number {
  let start = -1;
  for (let i = from; i <= end; i++) {
    const c = i < end ? text.charCodeAt(i) : 32;
    const alnum = isUpper(c) || isLowerOrDigit(c);
    if (start >= 0) {
      const prev = text.charCodeAt(i - 1);
      const next = i + 1 < end ? text.charCodeAt(i + 1) : NaN;
      const camel = isUpper(c) && (isLowerOrDigit(prev) || (isUpper(prev) && isLowerOrDigit(next) && !isDigit(next)));
      if (!alnum || camel) {
        wordEnd = i;
        return start;
      }
    }
    if (alnum && start < 0) start = i;
  }
  return -1;
}

/** Does text[from, end) hold a character outside 7-bit ASCII? */
function hasNonAscii(text: string, from: number, end: number): boolean {
  for (let i = from; i < end; i++) if (text.charCodeAt(i) > 0x7f) return true;
  return false;
}

/**
 * Word evidence from a name: the first verb-like word of its last dotted
 * segment (`deploy.diff_manifest`: the `deploy.` namespace is not a verb;
 * `gists.get_comment`: "comment" is the object of "get"), plus any
 * destructive verb later in it (`force_delete_user`).
 */
function nameEvidence(name: string, out: Evidence[]): void {
  // the last segment, or the whole name when that is empty ("tools."), read in place
  const dot = name.lastIndexOf('.') + 1;
  const from = dot < name.length ? dot : 0;
  // appended to `out` (the tool's evidence); only this name's entries count for "first" and "destructive already"
  const first = out.length;
  let destructive = false;
  if (hasNonAscii(name, from, name.length)) {
    for (const w of wordsByRegex(name.slice(from))) destructive = nameWord(w, out, first, destructive);
    return;
  }
  for (let at = nextWord(name, from, name.length); at >= 0; at = nextWord(name, wordEnd, name.length)) {
    if (wordEnd - at <= LONGEST_VERB) destructive = nameWord(name.slice(at, wordEnd).toLowerCase(), out, first, destructive);
  }
}

/** One word of a name: evidence when it is the name's first verb, or its first destructive one. Whether a destructive verb was seen. */
function nameWord(w: string, out: Evidence[], first: number, destructive: boolean): boolean {
  const says = verdictOf(w);
  if (says !== undefined && (out.length === first || (says === 'destructive' && !destructive))) {
    out.push({ source: 'name', says, detail: `"${w}"` });
    if (says === 'destructive') return true;
  }
  return destructive;
}

/**
 * Name evidence strong enough to tighten a label derived from a read
 * method: a destructive verb anywhere in the name's last segment
 * (`auth.revoke`, `apps_uninstall`), or a write verb in a name with no read
 * verb (`views.publish`; not `rate-limit/get`, where "rate" is a noun, nor
 * `inviteRequests.list`). Words only ever tighten.
 * @example tighteningEvidence('auth_revoke') // { source: 'name', says: 'destructive', detail: '"revoke"' }
 */
export function tighteningEvidence(name: string): Evidence | undefined {
  const last = name.slice(name.lastIndexOf('.') + 1) || name;
  const verdicts = words(last).map((w) => ({ w, says: verdictOf(w) }));
  const destroys = verdicts.find((v) => v.says === 'destructive');
  if (destroys) return { source: 'name', says: 'destructive', detail: `"${destroys.w}"` };
  if (verdicts.some((v) => v.says === 'read')) return undefined;
  const write = verdicts.find((v) => v.says === 'write');
  return write ? { source: 'name', says: 'write', detail: `"${write.w}"` } : undefined;
}

/** A sentence end: `.`, `!` or `?` then a white space (one code unit each: the match is 2 long). Global, for `test` and `lastIndex`. */
const SENTENCE_END = /[.!?]\s/g;

/** Word evidence from a description: its first verb-like word (the rest is often about other things). */
function descriptionEvidence(description: string): Evidence | undefined {
  // the text up to the first sentence end (as `split(/(?<=[.!?])\s/)[0]`), found and read in place: no match
  // object, no copy of the sentence
  SENTENCE_END.lastIndex = 0;
  const end = SENTENCE_END.test(description) ? SENTENCE_END.lastIndex - 1 : description.length;
  SENTENCE_END.lastIndex = 0;
  if (hasNonAscii(description, 0, end)) {
    for (const w of wordsByRegex(description.slice(0, end))) {
      const says = verdictOf(w);
      if (says) return { source: 'description', says, detail: `"${w}"` };
    }
    return undefined;
  }
  for (let at = nextWord(description, 0, end); at >= 0; at = nextWord(description, wordEnd, end)) {
    if (wordEnd - at > LONGEST_VERB) continue;
    const w = description.slice(at, wordEnd).toLowerCase();
    const says = verdictOf(w);
    if (says) return { source: 'description', says, detail: `"${w}"` };
  }
  return undefined;
}

/** All evidence about a tool's effects, strongest sources first. */
export function effectEvidence(tool: Pick<Tool, 'name' | 'id' | 'description' | 'hints' | 'providers' | 'permissions'>): Evidence[] {
  const out: Evidence[] = [];
  for (const p of tool.providers ?? []) {
    const method = p.name === 'http' && typeof p.config?.['method'] === 'string' ? p.config['method'].toUpperCase() : undefined;
    if (method) out.push({ source: 'http-method', says: READ_METHODS.has(method) ? 'read' : method === 'DELETE' ? 'destructive' : 'write', detail: method });
  }
  const h = tool.hints;
  if (h?.readOnly === true) out.push({ source: 'hints', says: 'read', detail: 'readOnlyHint: true' });
  if (h?.readOnly === false) out.push({ source: 'hints', says: h.destructive === false ? 'write' : 'destructive', detail: 'readOnlyHint: false' });
  else if (h?.destructive === true && h.readOnly !== true) out.push({ source: 'hints', says: 'destructive', detail: 'destructiveHint: true' });
  // An explicit empty permission list (Pylot's "needs no capability") is a declaration, not silence.
  if (tool.permissions?.length === 0) out.push({ source: 'permissions', says: 'read', detail: 'declared: permissions []' });
  nameEvidence(tool.id ?? tool.name, out);
  if (tool.id !== undefined && tool.id !== tool.name) nameEvidence(tool.name, out);
  if (tool.description) {
    const said = descriptionEvidence(tool.description);
    if (said) out.push(said);
  }
  return out;
}

/**
 * Does the evidence say the tool writes? `write` when any evidence says it
 * writes (or destroys); `read` when some says it reads and none says it
 * writes; `unknown` without evidence.
 */
export function inferWrites(evidence: readonly Evidence[]): 'read' | 'write' | 'unknown' {
  if (evidence.some((e) => e.says !== 'read')) return 'write';
  return evidence.length > 0 ? 'read' : 'unknown';
}
