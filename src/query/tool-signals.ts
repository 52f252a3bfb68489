/**
 * What a tool's name says about it, for ranking: the verb it is named
 * after, whether it destroys something, and whether it returns many things
 * or one. Read once per tool of an index (a snapshot is immutable).
 * @module
 */
import { effectEvidence, verdictOf, words, type Verdict } from '../model/evidence.js';
import { isDerived } from '../model/derive.js';
import type { Tool } from '../model/schema.js';
import type { Scope } from './understand.js';
import { stem } from './tokenize.js';

export interface ToolSignals {
  /** Stems of the verbs in the tool's name (`github.delete_branch` → ["delet"]). */
  verbs: string[];
  /**
   * What the name's verbs say: the first word's when it is a verb (after a
   * toolkit prefix: `check_lock_status` reads, its "lock" is the object);
   * else `read` when all read, `write` when all write or destroy, `mixed`
   * when both; absent without verbs.
   */
  verbsSay?: 'read' | 'write' | 'mixed';
  /** The name's first word (after a toolkit prefix) is a verb that writes: the tool is named after a write (`lock_door`, `place_order`). */
  namedWrite: boolean;
  /** Its name, hints, HTTP method or description say it destroys or withdraws something. */
  destructive: boolean;
  /**
   * Its mode was derived from silence: no declaration, no HTTP method, no
   * server hints (a catalog that says nothing about effects). Its label
   * stays `write`; ranking may then read its name for what it does.
   */
  silent: boolean;
  /**
   * Most names of its catalog carry a verb ({@link namesSpeak}), so a
   * silent catalog's names can be read for what its tools do. `true` for a
   * tool read on its own.
   */
  namesSpeak: boolean;
  /** Returns many things (`list_…`, `search_…`, a plural object) or one (`get_issue`). */
  cardinality: Scope;
}

/** Name words that mean the tool returns many things. */
const LIST_VERBS = new Set(['list', 'search', 'find', 'query', 'browse', 'enumerate', 'all', 'history', 'index', 'feed', 'batch', 'bulk']);
/** Name verbs that fetch one thing when their object is singular. */
const ITEM_VERBS = new Set(['get', 'read', 'fetch', 'show', 'retrieve', 'describe', 'view', 'lookup', 'info', 'detail', 'details', 'inspect']);

const plural = (w: string) => w.length > 3 && /[^s]s$/.test(w) && !/(us|is|ss|ous|ics|news|status|alias|canvas|access|class|series|species|details)$/.test(w);

/**
 * Verbs of tool names that write but that the evidence reader's lists lack
 * (they say nothing about a tool's declared mode; here they only say what a
 * name does): "manage" tools are multiplexed create/update/cancel tools,
 * "input" fills a form, "place" puts an order, "trade" buys or sells,
 * "handle" confirms or declines, "redirect" sends elsewhere, "play" starts
 * media on a device.
 */
const NAME_WRITE_VERBS = new Set(['manage', 'input', 'place', 'trade', 'handle', 'redirect', 'play']);

/** What a word of a tool's name says as a verb: the evidence reader's verdict, else {@link NAME_WRITE_VERBS}. */
export const nameVerdict = (w: string): Verdict | undefined => verdictOf(w) ?? (NAME_WRITE_VERBS.has(w) ? 'write' : undefined);

const cache = new WeakMap<Tool, ToolSignals>();

/** The words of a tool's name: its last dotted segment, split at case changes and punctuation. */
const nameWordsOf = (tool: Tool): string[] => words(tool.name.slice(tool.name.lastIndexOf('.') + 1) || tool.name);

/** A toolkit prefix is at most this many words long. */
const MAX_PREFIX_WORDS = 4;
/** It is shared by at least this many tools... */
const MIN_PREFIX_TOOLS = 3;
/** ...and in at least this share of them a verb follows it. */
const MIN_VERB_AFTER = 0.5;

/**
 * How many leading name words of each tool are a toolkit's name rather than
 * what the tool does: in a catalog flattened from toolkits
 * (`august_smart_lock_lock_door`, `august_smart_lock_check_lock_status`),
 * the toolkit's words can hold a verb ("lock") that says nothing about the
 * tool. A prefix is a toolkit when at least {@link MIN_PREFIX_TOOLS} tools
 * share it, a verb follows it in at least half of them, it does not start
 * with a verb (`list_…`, `get_…` are verbs, not toolkits), and it does not
 * split a toolkit already found (`shopify_get_…` is the `shopify` toolkit's
 * "get"; `august_smart_lock` is one name because every `august_smart` tool
 * goes on with "lock"). Each tool gets its longest toolkit prefix, else 0.
 * @example toolkitPrefixes(tools) // [3, 3, 3, 0, …] for august_smart_lock_… tools
 */
export function toolkitPrefixes(tools: readonly Tool[]): Uint8Array {
  const names = tools.map(nameWordsOf);
  const seen = new Map<string, { tools: number; verbAfter: number }>();
  const prefixesOf = (w: string[]): string[] => {
    if (w.length < 2 || nameVerdict(w[0]!) !== undefined) return [];
    const keys = [w[0]!];
    for (let k = 2; k <= Math.min(MAX_PREFIX_WORDS, w.length - 1); k++) keys.push(`${keys[k - 2]!} ${w[k - 1]!}`);
    return keys;
  };
  for (const w of names) {
    prefixesOf(w).forEach((key, i) => {
      const c = seen.get(key) ?? { tools: 0, verbAfter: 0 };
      c.tools++;
      if (nameVerdict(w[i + 1]!) !== undefined) c.verbAfter++;
      seen.set(key, c);
    });
  }
  const valid = new Map<string, boolean>();
  const isToolkit = (key: string): boolean => {
    const known = valid.get(key);
    if (known !== undefined) return known;
    const c = seen.get(key)!;
    let ok = c.tools >= MIN_PREFIX_TOOLS && c.verbAfter >= MIN_VERB_AFTER * c.tools;
    const cut = key.lastIndexOf(' ');
    if (ok && cut > 0) {
      const parent = key.slice(0, cut);
      ok = !isToolkit(parent) || seen.get(parent)!.tools === c.tools;
    }
    valid.set(key, ok);
    return ok;
  };
  const out = new Uint8Array(tools.length);
  names.forEach((w, i) => {
    prefixesOf(w).forEach((key, k) => {
      if (isToolkit(key)) out[i] = k + 1;
    });
  });
  return out;
}

/** At least this share of a catalog's names must carry a verb for its names to count as evidence. */
const NAMES_SPEAK_SHARE = 0.5;

/**
 * Do the catalog's names say what its tools do? True when at least
 * {@link NAMES_SPEAK_SHARE} of them hold a verb past their toolkit prefix
 * (`create_issue`, `august_smart_lock_check_lock_status`). In a catalog of
 * brand names (`Klarna`, `WolframAlpha`, `timeport`) the few that hold one
 * (`search`, `ImageSearch`) are no more likely to read than the rest, so
 * ranking must not prefer them for it.
 * @example namesSpeak(tools, toolkitPrefixes(tools)) // false for MetaTool's plugins
 */
export function namesSpeak(tools: readonly Tool[], prefixes: Uint8Array): boolean {
  let named = 0;
  tools.forEach((tool, i) => {
    if (nameWordsOf(tool).slice(prefixes[i] ?? 0).some((w) => nameVerdict(w) !== undefined)) named++;
  });
  return named >= NAMES_SPEAK_SHARE * tools.length;
}

/**
 * The signals of one tool (cached per tool object when `prefix` is 0).
 * `prefix`: how many leading name words are its toolkit's name
 * ({@link toolkitPrefixes}); their verbs are not the tool's.
 * @example toolSignals({ name: 'github.list_branches', ... }) // { verbs: ['list'], verbsSay: 'read', destructive: false, cardinality: 'list' }
 */
export function toolSignals(tool: Tool, prefix = 0): ToolSignals {
  let s = prefix === 0 ? cache.get(tool) : undefined;
  if (s) return s;
  const nameWords = nameWordsOf(tool);
  const verbs: string[] = [];
  const says = new Set<'read' | 'write'>();
  const kind = (v: Verdict) => (v === 'read' ? 'read' : 'write');
  for (const w of nameWords.slice(prefix)) {
    const v: Verdict | undefined = nameVerdict(w);
    if (v === undefined) continue;
    verbs.push(stem(w));
    says.add(kind(v));
  }
  // a verb in first position is what the tool does; later ones are its object (`check_lock_status`)
  const lead = nameWords[prefix] === undefined ? undefined : nameVerdict(nameWords[prefix]!);
  const verbsSay = lead !== undefined ? kind(lead) : says.size === 2 ? 'mixed' : [...says][0];
  const evidence = effectEvidence(tool);
  const destructive = evidence.some((e) => e.says === 'destructive') || tool.hints?.destructive === true;
  const silent = isDerived(tool, 'effects.mode') && !evidence.some((e) => e.source === 'http-method' || e.source === 'hints');
  let cardinality: Scope = 'unknown';
  const last = nameWords.at(-1) ?? '';
  const description = (tool.description ?? '').slice(0, 160).toLowerCase();
  if (nameWords.some((w) => LIST_VERBS.has(w)) || (nameWords.length > 1 && plural(last))) cardinality = 'list';
  else if (nameWords.some((w) => ITEM_VERBS.has(w))) cardinality = 'item';
  else if (/^(lists?|search(es)?|returns? (a |the )?list|find)\b/.test(description)) cardinality = 'list';
  const signals: ToolSignals = { verbs, ...(verbsSay !== undefined ? { verbsSay } : {}), namedWrite: lead !== undefined && kind(lead) === 'write', destructive, silent, namesSpeak: true, cardinality };
  if (prefix === 0) cache.set(tool, signals);
  return signals;
}
