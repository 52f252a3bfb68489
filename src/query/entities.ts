/**
 * Values in a task that are not words about the tool: ids, paths, URLs,
 * dates, numbers, quoted text, channel and user handles. Left in the term
 * list they become rare, heavy terms ("4512" matching a tool named
 * `v4512`, "/etc/hosts" matching an example value in a parameter
 * description), so query understanding takes them out and keeps only what
 * their kind says (a path is about files, a URL about the web).
 *
 * Patterns, not a grammar: each kind is one regular expression, tried in
 * the order below (a URL before a path, a date before a number).
 * @module
 */
import { words } from '../model/evidence.js';

export type EntityKind = 'url' | 'domain' | 'email' | 'path' | 'file' | 'slug' | 'date' | 'time' | 'id' | 'version' | 'channel' | 'handle' | 'quoted' | 'number';

export interface Entity {
  kind: EntityKind;
  /** The text as it appeared (cut to 80 characters). */
  text: string;
}

/** The extensions a file name is recognised by. */
const FILE_EXTENSIONS = 'json|ya?ml|toml|md|txt|csv|tsv|pdf|docx?|xlsx?|pptx?|png|jpe?g|gif|svg|webp|mp[34]|wav|zip|tar|gz|log|ts|js|mjs|py|go|rs|java|rb|sh|html?|css|sql|xml|ini|env|lock';

/**
 * Kinds in matching order, each with its pattern and the index term its
 * kind contributes (at the weak weight), if any.
 *
 * In linear time: a pattern that opens with a run of characters (an
 * email's `[\w.+-]+@`, a domain's labels, a path's or a slug's first part,
 * a file's name, an id of parts) starts only at the first place in a run
 * where it may (a lookbehind rules out a start that has one earlier in the
 * same run, which would match whatever it would). Tried from every word
 * boundary of a long run ("x-x-x-…", "a.a.a.…@"), each start scanned the
 * rest of the run: 64 KB took seconds. For the same reason an id of parts
 * ("INC-4512") counts the digits and the letter it needs within itself,
 * not in the rest of the run.
 */
const KINDS: ReadonlyArray<{ kind: EntityKind; pattern: RegExp; term?: string }> = [
  { kind: 'quoted', pattern: /"[^"\n]{1,200}"|“[^”\n]{1,200}”|`[^`\n]{1,200}`|(?<![\w])'[^'\n]{1,200}'(?![\w])/g },
  { kind: 'url', pattern: /\b(?:https?|ftp|wss?):\/\/[^\s"'<>]+|\bwww\.[a-z0-9-]+\.[^\s"'<>]+/gi, term: 'url' },
  { kind: 'email', pattern: /\b(?<!\w[.+-]*)[\w.+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+\b/gi, term: 'email' },
  { kind: 'domain', pattern: /\b(?<!(?:^|\W)[a-z0-9](?:[a-z0-9-]|\.(?!\.))*?)(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|ai|app|biz|info|co|uk|de|fr|gov|edu|me|us|xyz|cloud|site|tech)\b(?![\w-])/gi, term: 'domain' },
  { kind: 'path', pattern: /(?:^|(?<=[\s(=:]))(?:~|\.{1,2})?\/[\w.@+-]+(?:\/[\w.@+-]*)*|\b[a-z]:\\[\w.\\ -]+|\b(?<!\w[.-]*)[\w.-]+\/[\w.-]+\/[\w./-]+/gi, term: 'file' },
  { kind: 'file', pattern: new RegExp(String.raw`\b(?<!\w(?<!\.(?:${FILE_EXTENSIONS}))-*)[\w-]+\.(?:${FILE_EXTENSIONS})\b`, 'gi'), term: 'file' },
  { kind: 'date', pattern: /\b\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?z?)?\b|\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/gi },
  { kind: 'slug', pattern: /\b(?=[a-z0-9])(?<!(?:^|\W)[a-z0-9][\w.-]*?)(?!(?:read|write|and|or|input|output|yes|no|on|off|true|false|either)\/)[a-z0-9][\w.-]*\/(?!(?:read|write|and|or|input|output|yes|no|on|off|true|false|either)\b)[\w.-]*[a-z0-9]\b/gi },
  { kind: 'time', pattern: /\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b/gi },
  { kind: 'version', pattern: /\bv\d+(?:\.\d+)+(?:-[\w.]+)?\b|\b\d+\.\d+\.\d+(?:-[\w.]+)?\b/gi },
  { kind: 'id', pattern: /#\d+\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\b(?=[a-z0-9])(?<!(?:^|[^\w#])[a-z0-9](?:[a-z0-9]|[_-](?![_-]))*?[_-])(?=(?:[a-z0-9]|[_-](?=[a-z0-9]))*?\d(?:[a-z0-9]|[_-](?=[a-z0-9]))*?\d)(?=(?:\d|[_-](?=[a-z0-9]))*[a-z])[a-z0-9]+(?:[_-][a-z0-9]+)+\b|\b(?=(?:\w*?\d){3})(?=\w*[a-z])\w{8,}\b|\b(?=\w*\d{4})\w*[a-z]\w*\b/gi },
  { kind: 'channel', pattern: /(?<![\w&])#[a-z][\w-]*/gi, term: 'channel' },
  { kind: 'handle', pattern: /(?<![\w.])@[a-z][\w.-]*/gi, term: 'user' },
  { kind: 'number', pattern: /(?<![\w.])[$€£]?\d+(?:[.,]\d+)*%?(?![\w])/g },
];

/** What `extractEntities` gives back. */
export interface Extracted {
  /** The text with every entity replaced by a placeholder word (sentence structure is kept for reading verbs). */
  text: string;
  /** The entities in the order of their placeholders in `text`. */
  entities: Entity[];
  /** Index terms the entities' kinds contribute ("file" for a path), once each. */
  terms: string[];
}

/** The word that stands in for an entity of a kind in the remaining text (one word, so sentence structure survives). */
export const entityWord = (kind: EntityKind): string => `zq${kind}zq`;
/** Is this word a stand-in for an entity? */
export const isEntityWord = (word: string): boolean => word.startsWith('zq') && word.endsWith('zq');

/**
 * Take the entities out of a task.
 *
 * @example
 * extractEntities('close #4512 and post in #eng').entities
 * // [{ kind: 'id', text: '#4512' }, { kind: 'channel', text: '#eng' }]
 */
export function extractEntities(task: string): Extracted {
  // the marks' delimiters are the task's own characters no more
  let text = task.replace(MARK_DELIMITERS, ' ');
  const found: Entity[] = [];
  const terms = new Set<string>();
  // each entity is first replaced by a mark of its own (lowercase letters between two private-use characters: no
  // later pattern matches one), so that the entities can be listed in the order they appear in the task, whichever
  // pass found them
  const mark = (kind: EntityKind, match: string): string => ` ${markWord(found.push({ kind, text: match.slice(0, 80) }) - 1)} `;
  for (const { kind, pattern, term } of KINDS) {
    text = text.replace(pattern, (match: string) => {
      if (term) terms.add(term);
      return mark(kind, match);
    });
  }
  // random-case ids ("RGvXGjIWyIW", "gDigAX6tNT"): many short camel humps, unlike a name ("getAvailableRooms")
  text = text.replace(/\b[A-Za-z0-9]{7,}\b/g, (match: string) => {
    const humps = match.match(/[A-Z]+[a-z0-9]*|[a-z0-9]+/g) ?? [];
    if (humps.length < 4 || match.length / humps.length >= 3) return match;
    return mark('id', match);
  });
  const entities: Entity[] = [];
  // in one pass, so that no stand-in it writes is read again: each mark becomes its entity's stand-in, and a word of
  // the task's own that would read as one ("zqidzq", "zq") is split after each "z" before a "q" ("z qidz q")
  text = text.replace(MARK_OR_WORD, (match: string, serial: string | undefined) => {
    if (serial === undefined) return words(match).some(isEntityWord) ? match.replace(/z(?=q)/gi, '$& ') : match;
    const e = found[markSerial(serial)]!;
    entities.push(e);
    return entityWord(e.kind);
  });
  return { text, entities, terms: [...terms] };
}

/** The two characters a mark is written between (private use: no text means anything by them). */
const MARK_DELIMITERS = /[\uE000\uE001]/g;
/** A mark and its serial number (written in the letters a-z only), or a run of letters and digits of the task's own. */
const MARK_OR_WORD = /\uE000([a-z]+)\uE001|[a-z0-9]+/gi;
const markWord = (serial: number): string => `\uE000${[...serial.toString(26)].map((c) => String.fromCharCode(Number.parseInt(c, 26) + 97)).join('')}\uE001`;
const markSerial = (letters: string): number => Number.parseInt([...letters].map((c) => (c.charCodeAt(0) - 97).toString(26)).join(''), 26);

/** Entities whose own words may name what a tool works on. */
const WORDY_KINDS: ReadonlySet<EntityKind> = new Set(['quoted', 'slug']);
/** An id made of parts, one of them a word ("COVID-19", "CH3-CH2-OH", "INC-4512"): not a uuid, a "#" number or random letters. */
const NAMED_ID = /^(?![0-9a-f]{8}-)(?=.*\b[a-z]{2,}[0-9]?\b)[a-z0-9]+(?:[_-][a-z0-9]+)+$/i;
/**
 * The words of ids made of parts, one of them a word ("COVID-19" → "COVID"):
 * the name of a thing, matched as the task's own words; the numbers stay out.
 */
export function namedIdWords(entities: readonly Entity[]): string[] {
  return entities.filter((e) => e.kind === 'id' && NAMED_ID.test(e.text)).flatMap((e) => e.text.split(/[_-]/).filter((w) => /^[a-z]{2,}\d?$/i.test(w)));
}
/** File formats by extension, in the words tools use for them. */
const FORMATS: Readonly<Record<string, string>> = {
  xlsx: 'excel spreadsheet', xls: 'excel spreadsheet', csv: 'csv', tsv: 'tsv', md: 'markdown', docx: 'word document', doc: 'word document',
  pptx: 'powerpoint presentation', ppt: 'powerpoint presentation', pdf: 'pdf', png: 'image', jpg: 'image', jpeg: 'image', gif: 'image', webp: 'image',
  svg: 'svg image', mp3: 'audio', wav: 'audio', mp4: 'video', json: 'json', yaml: 'yaml', yml: 'yaml', html: 'html', htm: 'html', txt: 'text', zip: 'archive',
};

/**
 * What entities say about the tools a task needs, as text to match weakly:
 * the words of quoted names ("Wine Quality") and slugs ("shadcn/ui": a
 * product; "acme/web": an owner and a repository), and the format of a
 * path's or file name's extension ("sales.xlsx" is an Excel spreadsheet).
 * Never the rest of a path (folders, file names), an id, a number or a date.
 * @example entityWords([{ kind: 'path', text: '/root/excel/sales.xlsx' }]) // ['excel spreadsheet']
 */
export function entityWords(entities: readonly Entity[]): string[] {
  const out: string[] = [];
  for (const e of entities) {
    if (WORDY_KINDS.has(e.kind)) out.push(e.text.replace(/[^\p{L}\p{N}]+/gu, ' ').trim());
    else if (e.kind === 'path' || e.kind === 'file') {
      const ext = /\.([a-z0-9]{2,5})$/i.exec(e.text)?.[1]?.toLowerCase();
      if (ext !== undefined && Object.hasOwn(FORMATS, ext)) out.push(FORMATS[ext]!);
    }
  }
  return out;
}
