/**
 * Verbs as people use them in requests. Two tables on top of the evidence
 * reader's verb lists (model/evidence.ts, which read tool names):
 * - verbs that are common in requests but rare in tool names ("tag issue 19
 *   as a bug", "ask alice to review", "turn it off"), with their verdict;
 * - verb families: the verbs of one family ask for the same kind of change,
 *   so a task's verb also matches the family's canonical verb ("remove the
 *   file" meets `delete_file`; "open an issue", "start a branch" and "make a
 *   gist" create one; "let the team know" sends a message).
 *
 * General English, not per-catalog rules: the vocabulary bridge
 * (./vocabulary.ts) learns everything else from data.
 * @module
 */
import { verdictOf, type Verdict } from '../model/evidence.js';

/** Request verbs the evidence lists lack, with their verdict. */
const REQUEST_VERBS: Readonly<Record<string, Verdict>> = {
  tag: 'write', label: 'write', ask: 'write', request: 'write', make: 'write', turn: 'write', bring: 'write', convert: 'write', mention: 'write', link: 'write',
  attach: 'write', tell: 'write', remind: 'write', ping: 'write', nudge: 'write', escalate: 'write', acknowledge: 'write', ack: 'write', snooze: 'write', announce: 'write',
  broadcast: 'write', dm: 'write', text: 'write', call: 'write', compose: 'write', respond: 'write', answer: 'write', draft: 'write', file: 'write', log: 'write', note: 'write',
  bookmark: 'write', favorite: 'write', favourite: 'write', unstar: 'write', rollback: 'write', revert: 'write', undo: 'write', redo: 'write', fix: 'write', bump: 'write',
  tweak: 'write', fill: 'write', put: 'write', hide: 'write', unhide: 'write', restrict: 'write', allow: 'write', deny: 'write', promote: 'write', demote: 'write', transfer: 'write',
  clone: 'write', fork: 'write', copy: 'write', duplicate: 'write', ship: 'write', release: 'write', tidy: 'write', prune: 'destructive', trash: 'destructive',
  stage: 'write', unstage: 'write', remember: 'write', memorize: 'write', forget: 'destructive', checkout: 'write', rebase: 'write', squash: 'write',
  place: 'write', manage: 'write', input: 'write', trade: 'write', handle: 'write',
  cancel: 'write', pause: 'write', resume: 'write', hold: 'write', unassign: 'write', reassign: 'write', flag: 'write', report: 'write',
  see: 'read', explore: 'read', gather: 'read', summarise: 'read', summarize: 'read', explain: 'read', list: 'read', display: 'read', print: 'read', grab: 'read', double: 'read',
};

/**
 * The verdict of a past participle or past tense ("posted", "archived",
 * "deleted"): the state or history of the object, not the task's verb.
 * @example participleVerdict('archived') // 'write'
 */
export function participleVerdict(word: string): Verdict | undefined {
  if (!word.endsWith('ed') || word.length < 5) return undefined;
  const base = word.slice(0, -2);
  return requestVerdict(base) ?? requestVerdict(`${base}e`) ?? requestVerdict(base.slice(0, -1)) ?? (base.endsWith('i') ? requestVerdict(`${base.slice(0, -1)}y`) : undefined);
}

/**
 * What a verb says in a request: the evidence reader's verdict, else the
 * request table's.
 * @example requestVerdict('tag') // 'write'
 */
export function requestVerdict(word: string): Verdict | undefined {
  return verdictOf(word) ?? (Object.hasOwn(REQUEST_VERBS, word) ? REQUEST_VERBS[word] : undefined);
}

/** Verb families: each verb (or phrasal verb) → the canonical verbs it also matches. */
const FAMILIES: ReadonlyArray<{ canonical: readonly string[]; verbs: readonly string[] }> = [
  { canonical: ['delete', 'remove'], verbs: ['delete', 'remove', 'forget', 'drop', 'erase', 'destroy', 'purge', 'wipe', 'trash', 'get rid of', 'throw away', 'throw out', 'clean up', 'clean out', 'clear out', 'take down', 'tear down', 'prune', 'rm', 'del'] },
  { canonical: ['update', 'edit'], verbs: ['update', 'edit', 'change', 'modify', 'tweak', 'fix', 'adjust', 'alter', 'correct', 'amend', 'revise', 'rename', 'bump', 'bump up', 'turn', 'set'] },
  { canonical: ['send', 'message', 'post'], verbs: ['send', 'message', 'post', 'tell', 'notify', 'ping', 'dm', 'text', 'email', 'announce', 'broadcast', 'let know', 'give a heads up', 'give heads up', 'reach out to', 'drop a line', 'drop a note', 'send out', 'pass on', 'pass along', 'loop in', 'remind', 'nudge', 'reply', 'respond', 'answer'] },
  { canonical: ['comment'], verbs: ['comment', 'reply', 'respond', 'note', 'let know'] },
  { canonical: ['search', 'find'], verbs: ['search', 'find', 'look for', 'look up', 'dig up', 'hunt', 'locate', 'grep'] },
  { canonical: ['run', 'start'], verbs: ['run', 'start', 'kick off', 'fire up', 'launch', 'trigger', 'execute', 'rerun', 'retry', 'spin up', 'boot up', 'start up'] },
  { canonical: ['restore', 'unarchive'], verbs: ['restore', 'bring back', 'undelete', 'recover', 'unarchive', 'revert', 'roll back', 'undo'] },
  { canonical: ['revoke'], verbs: ['revoke', 'log out', 'sign out', 'withdraw', 'invalidate', 'expire'] },
  { canonical: ['add'], verbs: ['add', 'remember', 'memorize', 'keep track of', 'make a note of', 'take note of', 'stage', 'attach', 'put in', 'put into', 'put on', 'include', 'append', 'tag', 'label'] },
  { canonical: ['assign'], verbs: ['assign', 'reassign', 'hand over', 'give', 'ask'] },
  { canonical: ['read', 'get'], verbs: ['read', 'get', 'see', 'view', 'open', 'check', 'pull up', 'look at', 'show', 'grab'] },
];
/** Verbs that create when their object is new ("open an issue", "start a branch", "make a gist", "set up a webhook"). */
const CREATE_WITH_NEW = new Set(['open', 'start', 'make', 'set up', 'spin up', 'put together', 'write up', 'draft', 'file', 'add', 'new', 'kick off', 'write', 'compose', 'build', 'generate', 'register', 'book', 'schedule', 'log', 'raise', 'submit', 'post']);

const byVerb = new Map<string, string[]>();
for (const { canonical, verbs } of FAMILIES) {
  for (const v of verbs) byVerb.set(v, [...(byVerb.get(v) ?? []), ...canonical.filter((c) => !(byVerb.get(v) ?? []).includes(c))]);
}

/**
 * The canonical verbs a verb (or phrasal verb, its words joined by spaces)
 * also matches; `next` is the word after it (`a`, `an` or `new` make
 * "open", "start", "make" mean create). Empty for verbs of no family.
 * @example canonicalVerbs('open', 'an') // ['create']
 * @example canonicalVerbs('remove', 'the') // ['delete', 'remove']
 */
export function canonicalVerbs(verb: string, next: string | undefined): string[] {
  if ((next === 'a' || next === 'an' || next === 'new' || next === 'another') && CREATE_WITH_NEW.has(verb)) return ['create'];
  return byVerb.get(verb) ?? [];
}
