/**
 * Query understanding: what a task asks for, read the way people write
 * tasks to an agent, before any tool is scored.
 *
 * Small and deterministic: a task is cut into clauses; each clause loses its
 * politeness ("could you", "I'd like to", "please"); then its form decides.
 * - A question ("which…", "what's…", "is… ?", "show me…") reads.
 * - A verb in verb position (clause start, after "to", after a request)
 *   says read or write as the evidence reader's verb lists do; the same word
 *   elsewhere ("open issues", "the latest commit", "a new release") is an
 *   adjective or a noun and says nothing.
 * - Phrasal verbs ("get rid of", "let the team know", "look up") are read
 *   as one verb; "-ing" forms after "before", "after", "without", "instead
 *   of" are not the point of the task; negated verbs ("don't delete it")
 *   say what to avoid, not what to do.
 * - A write anywhere in the task makes it a write ("find the stale
 *   branches and delete them").
 * Each reading has a confidence: 0.9 for a verb in verb position, 0.8 for a
 * question, 0.5 for a bare noun phrase, 0.35 for a verb found elsewhere.
 *
 * Besides intent: list versus single-item signals, whether the task itself
 * asks to destroy something, and the content terms to match (entities,
 * question words and politeness out; generic verbs kept apart, at a low
 * weight, so "show" or "get" in a tool's name cannot outweigh the job).
 * @module
 */
import { verdictOf, words, type Verdict } from '../model/evidence.js';
import { entityWord, entityWords, namedIdWords, extractEntities, isEntityWord, type Entity } from './entities.js';
import { cjkRuns, foldContractions, numberTerms, stem, tokenize } from './tokenize.js';
import { matchPhrase } from './phrases.js';
import { canonicalVerbs, participleVerdict, requestVerdict } from './verbs.js';

export type Intent = 'read' | 'write' | 'unknown';
/** Does the task want many things, or one? */
export type Scope = 'list' | 'item' | 'unknown';

export interface Understanding {
  intent: Intent;
  /** How sure the reading is, 0..1 (0 when unknown; 1 when the caller gave the intent). */
  confidence: number;
  /** What the intent was read from, e.g. `question: "which"`, `verb: "delete"`. */
  evidence: string[];
  scope: Scope;
  /** The task itself asks to delete or remove something (destructive tools then pay no extra for it). */
  destroys: boolean;
  /** Stems of verbs the task negates ("don't delete it" → "delet"): tools named after them are not wanted. */
  avoid: string[];
  /** The task both reads and writes in verb position ("check the status, then submit a ticket"): it needs tools of both kinds, so neither kind is penalised for its intent. */
  mixed: boolean;
  /** Sentences of the task: more than one is a multi-step task ("Retrieve X. Then, send Y."). */
  steps: number;
  /** Text whose terms are matched at full weight. */
  content: string;
  /**
   * Each sentence that asks for something (a verb in verb position, a question), when there is more than one:
   * each step's own content words and its own values (numbers, one-word ids: as the task's `values`); else empty.
   */
  sentences: Sentence[];
  /** Generic verbs and the entities' kinds, matched at a low weight. */
  weak: string;
  /**
   * The task's numbers as terms ("difficulty 3", "the year 2025"), and its ids written as one word ("224x224x3",
   * "ABCD1234"): matched only where the catalog spells them out (a parameter's example value, a model's input
   * size), and only in tools the task's words matched.
   */
  values: string[];
  entities: Entity[];
}

/** One asking sentence of a task: its content text, and its values as terms (as {@link Understanding.values}). */
export interface Sentence {
  content: string;
  values: string[];
}

/** Words that open a question. */
const QUESTION = new Set(['what', 'which', 'who', 'whom', 'whose', 'where', 'when', 'why', 'how', 'is', 'are', 'was', 'were', 'do', 'does', 'did', 'has', 'have', 'had', 'am']);
/** Request openings, stripped before reading the verb (longest first within each start word). */
const REQUESTS: readonly string[][] = [
  ['please'], ['kindly'], ['just'], ['also'], ['now'], ['then'], ['and'], ['so'], ['ok'], ['okay'], ['hey'], ['hi'], ['quickly'], ['first'], ['finally'], ['go', 'ahead', 'and'],
  ['can', 'you'], ['could', 'you'], ['would', 'you'], ['will', 'you'], ['can', 'we'], ['could', 'we'], ['should', 'we'], ['shall', 'we'], ['can', 'i'], ['could', 'i'], ['should', 'i'],
  ['i', 'want', 'to'], ['i', 'need', 'to'], ['i', 'would', 'like', 'to'], ['i', 'like', 'to'], ['we', 'need', 'to'], ['we', 'want', 'to'], ['we', 'should'], ['i', 'must'], ['we', 'must'],
  ['help', 'me'], ['help', 'us'], ['let', 'us'], ['time', 'to'], ['try', 'to'], ['need', 'to'], ['want', 'to'], ['you', 'should'], ['i', 'am', 'trying', 'to'], ['remember', 'to'],
  ['how', 'do', 'i'], ['how', 'can', 'i'], ['how', 'do', 'we'], ['how', 'to'],
];
/** Requests that ask how to do something rather than to do it: a weaker reading. */
const HOW_TO = new Set(['how']);
/** Words after which a verb-or-noun word is used as a verb ("commit this", "file a bug", "post to …"). */
const VERB_FOLLOWERS = new Set([
  'a', 'an', 'the', 'my', 'our', 'your', 'their', 'his', 'her', 'its', 'this', 'that', 'these', 'those', 'it', 'them', 'me', 'us', 'him',
  'up', 'out', 'down', 'off', 'away', 'back', 'over', 'to', 'for', 'with', 'in', 'on', 'into', 'onto', 'from', 'all', 'some', 'every', 'each', 'any', 'everything',
  'everyone', 'everybody', 'somebody', 'someone', 'what', 'which', 'whatever',
]);
/** Is `w` a word after which a verb-or-noun word reads as a verb? */
const followsVerb = (w: string) => VERB_FOLLOWERS.has(w) || isEntityWord(w);
/** Words that open a noun phrase: a clause starting with one and holding no verb is a lookup. */
const NOUN_PHRASE_OPENERS = new Set(['the', 'my', 'our', 'all', 'any', 'every', 'some', 'today', 'yesterday', 'tomorrow', 'anything', 'everything', 'nothing', 'recent', 'latest', 'last', 'current', 'next', 'top', 'most', 'list', 'number', 'count', 'details', 'info', 'status']);
/** Words that are adjectives before a noun and verbs otherwise ("open issues" / "open an issue"). */
const ADJECTIVES = new Set(['open', 'new', 'closed', 'merged', 'pending', 'draft', 'archived', 'public', 'private', 'starred', 'live', 'active', 'current', 'latest', 'recent', 'locked', 'pinned', 'deleted', 'failed', 'running', 'scheduled', 'published']);
/** Words that are nouns before another noun and verbs otherwise ("commit history" / "commit this"). */
const NOUNS = new Set(['commit', 'file', 'post', 'record', 'order', 'book', 'message', 'email', 'comment', 'review', 'report', 'note', 'page', 'issue', 'draft', 'run', 'test', 'star', 'pin', 'tag', 'label', 'alert', 'change', 'request', 'release', 'deploy', 'schedule', 'plan', 'alarm', 'reminder', 'event', 'invite', 'charge', 'transfer', 'payment', 'refund', 'upload', 'download', 'export', 'import', 'backup', 'sync', 'merge', 'push', 'lock', 'block', 'share', 'reply', 'status', 'watch', 'count', 'search', 'query', 'check', 'record']);
/** Subordinators after which an "-ing" verb is not the point of the task ("view it before deleting it"). */
const SUBORDINATE = new Set(['before', 'after', 'without', 'instead', 'rather', 'while', 'when', 'until', 'by']);
/** Negations: the next verb (within two words) is what not to do. */
const NEGATIONS = new Set(['not', 'never', 'dont', 'without', 'instead', 'rather', 'avoid', 'stop']);
/** Read verbs too generic to say what a tool does; matched at the weak weight. */
const GENERIC = new Set(['get', 'show', 'list', 'find', 'search', 'fetch', 'look', 'view', 'see', 'tell', 'give', 'display', 'retrieve', 'check', 'know', 'let', 'need', 'want', 'make', 'do', 'help', 'use', 'pull', 'bring', 'provide', 'return', 'read']);
/** A write for later: scheduling is part of the job. */
const FUTURE = /\b(tomorrow|tonight|later|next (week|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday|morning)|in (an?|\d+|zqnumberzq) (minute|hour|day|week)s?|on (monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b/;
/** The confidence of a write in a task that also reads in verb position ("check the status, then submit a ticket"). */
/** A reading at least this sure is a request (a verb in verb position, a question), not a word in passing. */
const SURE = 0.8;
const MIXED_CONFIDENCE = 0.6;
/** Values that name one item. */
const NUMBER_WORD = entityWord('number');
const NAMING_KINDS = new Set([entityWord('id'), entityWord('quoted'), entityWord('url'), entityWord('path'), entityWord('file')]);
const MONTHS = /^(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/;
/** A number right after a noun names one item ("issue 4512", "PR 301"); not a date, a quantity or a count ("5 issues", "top 10"). */
function numberNames(before: string | undefined, after: string | undefined): boolean {
  if (before === undefined || FILLER.has(before) || VERB_FOLLOWERS.has(before) || MONTHS.test(before) || LIST_WORDS.has(before)) return false;
  if (['top', 'last', 'first', 'next', 'page', 'limit', 'past', 'over', 'under', 'about', 'around', 'than', 'least', 'most', 'every', 'per'].includes(before)) return false;
  return after === undefined || !(pluralNoun(after) || /^(minute|hour|day|week|month|year|second|percent|times|x)s?$/.test(after));
}
/** Words that signal many things. */
const LIST_WORDS = new Set(['which', 'all', 'every', 'any', 'list', 'many', 'each', 'everything', 'everyone', 'both', 'several', 'multiple', 'various']);
/** Words kept out of the content: question words, auxiliaries, pronouns, fillers. */
const FILLER = new Set([...QUESTION, 'me', 'us', 'you', 'i', 'we', 'they', 'them', 'he', 'she', 'him', 'her', 'it', 'there', 'here', 'please', 'kindly', 'just', 'also', 'now', 'then', 'can', 'could', 'would', 'will', 'should', 'shall', 'must', 'might', 'may', 'ok', 'okay', 'hey', 'hi', 'thanks', 'thank', 'right', 'quickly', 'actually', 'really', 'currently', 'still', 'already', 'yet', 'ever', 'got', 'going', 'gonna', 'like', 'dont', 'not', 'never', 'instead', 'rather', 'ahead', 'go', 'anymore', 'pls', 'plz', 'thx', 'asap', 'sure', 'well', 'maybe', 'perhaps', 'somehow', 'something', 'anything', 'everything', 'ones', 'one', 'since', 'yet', 'soon']);

interface Found {
  readings: Reading[];
  avoid: Set<string>;
  destroys: boolean;
  /** Read verbs consumed as intent evidence: matched at the weak weight. */
  weakVerbs: Set<string>;
  /** Canonical verbs of the verbs read ("remove" → "delete"), matched at full weight. */
  canonical: Set<string>;
  /** Verb-position words replaced by their canonical verb ("open" in "open an issue"): not matched themselves. */
  replaced: Set<string>;
}

interface Reading {
  says: Verdict | 'question' | 'phrase-read';
  confidence: number;
  evidence: string;
}

/** A clause's words with its opening requests removed, and whether one was a how-to or a request. */
function stripRequests(clause: string[]): { rest: string[]; howTo: boolean; requested: boolean } {
  let at = 0;
  let howTo = false;
  let requested = false;
  for (let changed = true; changed && at < clause.length && !matchPhrase(clause, at); ) {
    changed = false;
    for (const r of REQUESTS) {
      if (at + r.length <= clause.length && r.every((w, i) => clause[at + i] === w)) {
        if (HOW_TO.has(r[0]!)) howTo = true;
        else if (r.length > 1 || r[0] === 'please') requested = true;
        at += r.length;
        changed = true;
        break;
      }
    }
  }
  return { rest: at === 0 ? clause : clause.slice(at), howTo, requested };
}

/**
 * Does a verb that means create before "a"/"new" mean nothing else? A write
 * verb that is not also a noun or an adjective ("file", "post", "open") and
 * belongs to no family but "add" ("start" runs, "open" reads).
 */
function createsAsItself(verb: string): boolean {
  return requestVerdict(verb) === 'write' && !NOUNS.has(verb) && !ADJECTIVES.has(verb) && canonicalVerbs(verb, undefined).every((c) => c === 'add');
}

/** Is `word` (with what follows) used as a verb at the start of a clause? */
function verbAtStart(word: string, next: string | undefined, after: string | undefined): boolean {
  if (next === undefined || followsVerb(next)) return true;
  if (ADJECTIVES.has(word)) return false;
  // "commit history" is a noun phrase; "tag issue 19" names its object
  if (NOUNS.has(word) && requestVerdict(word) !== 'read') return requestVerdict(next) !== undefined || (after !== undefined && isEntityWord(after));
  return true;
}

/** The readings of one clause, and what it negates. */
function readClause(raw: string[], asked: boolean, out: Found): void {
  if (raw.length === 0) return;
  const { rest, howTo, requested } = stripRequests(raw);
  // "can you delete it?" is a request, not a question
  const question = !requested && (asked || QUESTION.has(raw[0]!)) && raw[1] !== 'not' && !(raw[0] === 'how' && ['do', 'can', 'to'].includes(raw[1] ?? ''));
  const lead = howTo ? 0.6 : 0.9;
  // negated verbs: remembered, never read as what to do
  const negated = new Set<number>();
  rest.forEach((w, i) => {
    if (!NEGATIONS.has(w)) return;
    for (let j = i + 1; j <= i + 3 && j < rest.length; j++) {
      const v = requestVerdict(rest[j]!) ?? matchPhrase(rest, j)?.says;
      if (v === undefined) continue;
      negated.add(j);
      if (v !== 'read') out.avoid.add(stem(rest[j]!));
      break;
    }
  });
  const phrase = matchPhrase(rest, 0);
  if (phrase && !question) {
    out.readings.push({ says: phrase.says === 'read' ? 'phrase-read' : phrase.says, confidence: lead, evidence: `phrase: "${phrase.text}"` });
    if (phrase.says === 'destructive') out.destroys = true;
    for (const w of phrase.words) (phrase.says === 'read' ? out.weakVerbs : out.replaced).add(w);
    for (const c of canonicalVerbs(phrase.words.join(' '), rest[phrase.length])) out.canonical.add(c);
    return;
  }
  const first = rest[0];
  const firstSays = first === undefined || negated.has(0) ? undefined : requestVerdict(first);
  if (!question && first !== undefined && firstSays !== undefined && verbAtStart(first, rest[1], rest[2])) {
    out.readings.push({ says: firstSays, confidence: lead, evidence: `verb: "${first}"` });
    if (firstSays === 'destructive') out.destroys = true;
    if (GENERIC.has(first)) out.weakVerbs.add(first);
    const canonical = canonicalVerbs(first, rest[1]);
    for (const c of canonical) out.canonical.add(c);
    // "open an issue", "start a branch": the verb means create, and is not matched as itself; a verb that only ever
    // writes ("add a record", "submit a ticket") is also matched as itself, as tools are named after it
    if (canonical.length === 1 && canonical[0] === 'create' && first !== 'create' && !createsAsItself(first)) out.replaced.add(first);
    return;
  }
  // a verb in verb position later: after "to" or a request ("I want the bot to delete …")
  for (let i = 1; i < rest.length; i++) {
    if (negated.has(i)) continue;
    const before = rest[i - 1]!;
    if (before !== 'to' && !(requested && i === 0)) continue;
    if (SUBORDINATE.has(rest[i - 2] ?? '')) continue;
    const p = matchPhrase(rest, i);
    const says = p?.says ?? requestVerdict(rest[i]!);
    if (says === undefined) continue;
    out.readings.push({ says, confidence: question ? 0.6 : 0.85, evidence: `verb after "to": "${p?.text ?? rest[i]}"` });
    if (says === 'destructive') out.destroys = true;
    if (!question) return;
  }
  if (question) {
    historyVerb(raw, out);
    out.readings.push({ says: 'question', confidence: 0.8, evidence: QUESTION.has(raw[0]!) ? `question: "${raw[0]}"` : 'question: "?"' });
    return;
  }
  const opener = rest[0];
  if (opener === 'new' || opener === 'another') {
    out.readings.push({ says: 'write', confidence: 0.6, evidence: `"${opener} …": something to create` });
    out.canonical.add('create');
    return;
  }
  // no verb at the start: a noun phrase ("open issues in acme/web", "the latest release") is a lookup
  if (opener !== undefined && (NOUN_PHRASE_OPENERS.has(opener) || ADJECTIVES.has(opener) || pluralNoun(opener))) {
    out.readings.push({ says: 'phrase-read', confidence: 0.5, evidence: 'a noun phrase (no verb): a lookup' });
    return;
  }
  // weak: a write or destructive verb elsewhere, not an adjective, noun or subordinate "-ing"
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!;
    if (negated.has(i) || ADJECTIVES.has(w) || FILLER.has(w) || SUBORDINATE.has(rest[i - 1] ?? '')) continue;
    const p = matchPhrase(rest, i);
    const says = p?.says ?? verdictOf(w); // the evidence lists only: the request table is full of nouns (request, call, file, log)
    if (says === undefined || (NOUNS.has(w) && !p && i > 0 && !followsVerb(rest[i + 1] ?? NUMBER_WORD))) continue;
    out.readings.push({ says, confidence: 0.35, evidence: `word: "${p?.text ?? w}"` });
    return;
  }
  // a clause opening with an unknown word ("frobnicate issue 19") may be an imperative: no reading
}

/** Auxiliaries that open a question about what happened ("did Amy reply…?", "has Sam paid…?"). */
const HISTORY_AUX = new Set(['did', 'has', 'have', 'had']);
/** Words after which a verb-or-noun word is a noun ("did the text go out?"). */
const DETERMINERS = new Set(['a', 'an', 'the', 'my', 'our', 'your', 'their', 'his', 'its', 'this', 'that', 'these', 'those', 'any', 'some', 'every', 'each', 'no']);

/**
 * In a question about what happened ("did Amy reply about the lease?", "did
 * Sam ever pay me back?"), the verb after the subject is the history being
 * looked up, not the job: a write verb there is matched at the weak weight,
 * as the participles of writes are ("the message I posted").
 */
function historyVerb(raw: string[], out: Found): void {
  if (!HISTORY_AUX.has(raw[0]!)) return;
  for (let i = 2; i < raw.length && i <= 4; i++) {
    const says = requestVerdict(raw[i]!);
    if (says === undefined || says === 'read') continue;
    if (!DETERMINERS.has(raw[i - 1]!)) out.weakVerbs.add(raw[i]!);
    return;
  }
}

/** A clause's words, and whether its sentence ended with a question mark. */
interface Clause {
  words: string[];
  asked: boolean;
  /** Which sentence of the task it is in. */
  sentence: number;
}

/** Split into clauses at sentence punctuation, commas, and "and"/"then"/"but". */
function clauses(text: string): Clause[] {
  const out: Clause[] = [];
  let sentenceNo = 0;
  for (const m of text.matchAll(/([^.!?;:\n]+)([.!?;:\n]*)/g)) {
    const asked = m[2]!.includes('?');
    if (m.index === 0 || /[.!?\n]/.test(text[m.index - 1] ?? '')) sentenceNo++;
    for (const sentence of m[1]!.split(/,\s*/)) {
      let current: string[] = [];
      for (const w of words(sentence.replace(/'/g, ''))) {
        if ((w === 'and' || w === 'then' || w === 'but') && current.length > 0) {
          out.push({ words: current, asked, sentence: sentenceNo });
          current = [];
          continue;
        }
        current.push(w);
      }
      if (current.length > 0) out.push({ words: current, asked, sentence: sentenceNo });
    }
  }
  return out;
}

/** The terms a value stands for when matched: a number's ({@link numberTerms}), a one-word id's ({@link idTerm}). */
const valueTerms = (e: Entity): string[] => (e.kind === 'number' ? numberTerms(e.text) : e.kind === 'id' ? idTerm(e.text) : []);

/**
 * The index term of an id written as one word ("224x224x3", "ABCD1234"), which a catalog may spell out as
 * it is; none for an id of parts or camel humps ("XOVtFd5vEhp", "INC-4512": its pieces are not the id) or
 * a bare number ("#4512": numbers are matched as numbers).
 */
function idTerm(text: string): string[] {
  const parts = words(text);
  return parts.length === 1 && !/^\d+$/.test(parts[0]!) ? tokenize(parts[0]!) : [];
}

/** Was this plural word a noun in the task (a list signal)? */
function pluralNoun(word: string): boolean {
  return word.length > 3 && /[^s]s$/.test(word) && !/(us|is|ss|ous|ics|news|status|access|alias|always|was|has|does|yes|this|its|lets|thanks|towards|afterwards)$/.test(word) && stem(word) !== word && !isEntityWord(word);
}

/**
 * Read a task: intent with its confidence and evidence, list or item,
 * destruction asked for or ruled out, and the text to match.
 *
 * @example
 * understand("which PRs are waiting on me?") // { intent: 'read', confidence: 0.8, scope: 'list', ... }
 * understand("don't delete it, just archive the channel") // { intent: 'write', avoid: ['delet'], destroys: false, ... }
 */
export function understand(task: string): Understanding {
  const { text, entities, terms } = extractEntities(foldContractions(task));
  const found: Found = { readings: [], avoid: new Set(), destroys: false, weakVerbs: new Set(), canonical: new Set(), replaced: new Set() };
  const parts = clauses(text);
  // sentences that ask for something (a verb in verb position, a question): the task's steps
  const asking = new Set<number>();
  for (const [i, clause] of parts.entries()) {
    const before = found.readings.length;
    // a question mark asks about the sentence's first clause: "what are the treatments, write a report on them?" writes
    const opens = i === 0 || parts[i - 1]!.sentence !== clause.sentence;
    readClause(clause.words, clause.asked && opens, found);
    if (found.readings.slice(before).some((r) => r.confidence >= SURE)) asking.add(clause.sentence);
  }
  const writes = found.readings.filter((r) => r.says === 'write' || r.says === 'destructive');
  const reads = found.readings.filter((r) => r.says === 'read' || r.says === 'question' || r.says === 'phrase-read');
  const strongWrite = writes.reduce((m, r) => Math.max(m, r.confidence), 0);
  const strongRead = reads.reduce((m, r) => Math.max(m, r.confidence), 0);
  let intent: Intent = 'unknown';
  let confidence = 0;
  let evidence: string[] = [];
  let mixed = false;
  if (writes.length > 0 && strongWrite >= Math.min(strongRead, 0.6)) {
    intent = 'write';
    // a task that also reads in verb position needs read tools too: the write is sure, its exclusivity is not
    confidence = strongRead >= SURE ? Math.min(strongWrite, MIXED_CONFIDENCE) : strongWrite;
    evidence = writes.map((r) => r.evidence);
    // one at a time: a long task's readings are too many to pass as arguments (a call's arguments live on the stack)
    if (strongRead >= SURE) for (const r of reads) evidence.push(`also ${r.evidence}`);
    mixed = strongRead >= SURE && strongWrite >= SURE;
  } else if (reads.length > 0) {
    intent = 'read';
    confidence = strongRead;
    evidence = reads.map((r) => r.evidence);
  }
  if (!found.destroys) found.destroys = writes.some((r) => r.says === 'destructive' && r.confidence >= 0.6);
  // content and weak terms
  const all = parts.flatMap((c) => c.words);
  const content: string[] = [];
  const bySentence = new Map<number, Sentence>();
  const own = (sentence: number): Sentence => {
    let s = bySentence.get(sentence);
    if (!s) bySentence.set(sentence, (s = { content: '', values: [] }));
    return s;
  };
  // the entities are listed in the order of their stand-ins in the text: the k-th stand-in is the k-th entity
  let nextEntity = 0;
  // quoted names, slugs' words and files' formats may share words with a tool's description: weakly
  const weak = [...terms, ...entityWords(entities)];
  for (const clause of parts) {
    for (const w of clause.words) {
      if (isEntityWord(w)) {
        const e = entities[nextEntity++];
        if (e === undefined || !asking.has(clause.sentence)) continue;
        // a sentence's numbers and one-word ids are its values; the words of an id of parts ("COVID-19") its content
        const s = own(clause.sentence);
        s.values.push(...valueTerms(e));
        for (const named of namedIdWords([e])) s.content = s.content === '' ? named : `${s.content} ${named}`;
        continue;
      }
      if (FILLER.has(w) || found.replaced.has(w)) continue;
      // generic verbs, and participles of writes ("the message I posted", "the archived channel"): the object's history, not the job
      const participle = participleVerdict(w);
      if (found.weakVerbs.has(w) || GENERIC.has(w) || (participle !== undefined && participle !== 'read')) weak.push(w);
      else {
        content.push(w);
        if (!asking.has(clause.sentence)) continue;
        const s = own(clause.sentence);
        s.content = s.content === '' ? w : `${s.content} ${w}`;
      }
    }
  }
  if (intent === 'write' && (FUTURE.test(all.join(' ')) || entities.some((e) => e.kind === 'time'))) weak.push('schedule');
  // a family's verbs match weakly; a verb that meant create ("open an issue") is replaced by it at full weight
  // ("add a record", kept as itself, brings "create" weakly)
  const createReplaces = found.replaced.size > 0;
  for (const c of found.canonical) if (!content.includes(c)) (c === 'create' && createReplaces ? content : weak).push(c);
  let scope: Scope = 'unknown';
  const asksMany = all.some((w) => LIST_WORDS.has(w)) || /\bhow many\b|\bdo we have\b/.test(all.join(' '));
  const plural = all.some((w, i) => pluralNoun(w) && !isEntityWord(all[i - 1] ?? ''));
  // a number right after a noun names one item ("issue 4512", "PR 301"); before a plural it counts ("5 issues")
  const named = all.some((w, i) => (w === NUMBER_WORD && numberNames(all[i - 1], all[i + 1])) || NAMING_KINDS.has(w));
  // a plural alone is a weak signal ("the number of nurses"): it decides only in a short, one-sentence task
  if (asksMany) scope = 'list';
  else if (named) scope = 'item';
  else if (plural && all.length <= 12) scope = 'list';
  // a sentence with values but no word to match is no step of its own
  const steps = [...bySentence.values()].filter((s) => s.content !== '').map((s) => ({ content: s.content, values: [...new Set(s.values)] }));
  return {
    intent,
    confidence,
    evidence,
    scope,
    destroys: found.destroys,
    mixed,
    steps: new Set(parts.map((c) => c.sentence)).size,
    avoid: [...found.avoid].filter((a) => !found.destroys || a !== 'delet'),
    // CJK runs have no spaces for the clause reader to split at: matched whole, at full weight (tokenize pairs their characters)
    content: [...content, ...namedIdWords(entities), ...cjkRuns(text)].join(' '),
    sentences: steps.length > 1 ? steps : [],
    weak: weak.join(' '),
    values: [...new Set(entities.flatMap(valueTerms))],
    entities,
  };
}

