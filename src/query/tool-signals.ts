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
   * What the name's verbs say together: `read` when all read, `write` when
   * all write or destroy, `mixed` when both (`smart_lock_check_lock_status`:
   * a toolkit prefix can hold a verb), absent without verbs.
   */
  verbsSay?: 'read' | 'write' | 'mixed';
  /** Its name, hints, HTTP method or description say it destroys or withdraws something. */
  destructive: boolean;
  /**
   * Its mode was derived from silence: no declaration, no HTTP method, no
   * server hints (a catalog that says nothing about effects). Its label
   * stays `write`; ranking may then read its name for what it does.
   */
  silent: boolean;
  /** Returns many things (`list_…`, `search_…`, a plural object) or one (`get_issue`). */
  cardinality: Scope;
}

/** Name words that mean the tool returns many things. */
const LIST_VERBS = new Set(['list', 'search', 'find', 'query', 'browse', 'enumerate', 'all', 'history', 'index', 'feed', 'batch', 'bulk']);
/** Name verbs that fetch one thing when their object is singular. */
const ITEM_VERBS = new Set(['get', 'read', 'fetch', 'show', 'retrieve', 'describe', 'view', 'lookup', 'info', 'detail', 'details', 'inspect']);

const plural = (w: string) => w.length > 3 && /[^s]s$/.test(w) && !/(us|is|ss|ous|ics|news|status|alias|canvas|access|class|series|species|details)$/.test(w);

const cache = new WeakMap<Tool, ToolSignals>();

/**
 * The signals of one tool (cached per tool object).
 * @example toolSignals({ name: 'github.list_branches', ... }) // { verb: 'list', destructive: false, cardinality: 'list' }
 */
export function toolSignals(tool: Tool): ToolSignals {
  let s = cache.get(tool);
  if (s) return s;
  const name = tool.name.slice(tool.name.lastIndexOf('.') + 1) || tool.name;
  const nameWords = words(name);
  const verbs: string[] = [];
  const says = new Set<'read' | 'write'>();
  for (const w of nameWords) {
    const v: Verdict | undefined = verdictOf(w);
    if (v === undefined) continue;
    verbs.push(stem(w));
    says.add(v === 'read' ? 'read' : 'write');
  }
  const verbsSay = says.size === 2 ? 'mixed' : [...says][0];
  const evidence = effectEvidence(tool);
  const destructive = evidence.some((e) => e.says === 'destructive') || tool.hints?.destructive === true;
  const silent = isDerived(tool, 'effects.mode') && !evidence.some((e) => e.source === 'http-method' || e.source === 'hints');
  let cardinality: Scope = 'unknown';
  const last = nameWords.at(-1) ?? '';
  const description = (tool.description ?? '').slice(0, 160).toLowerCase();
  if (nameWords.some((w) => LIST_VERBS.has(w)) || (nameWords.length > 1 && plural(last))) cardinality = 'list';
  else if (nameWords.some((w) => ITEM_VERBS.has(w))) cardinality = 'item';
  else if (/^(lists?|search(es)?|returns? (a |the )?list|find)\b/.test(description)) cardinality = 'list';
  const signals: ToolSignals = { verbs, ...(verbsSay !== undefined ? { verbsSay } : {}), destructive, silent, cardinality };
  cache.set(tool, signals);
  return signals;
}
