/**
 * The vocabulary bridge: which catalog words a person's word stands for
 * ("picture" -> "imag", "message" -> "send"), learned from real query-tool
 * pairs by `scripts/build-vocabulary.mjs` into `data/vocabulary.json` (where
 * each association comes from is in docs/vocabulary.md and in the file).
 *
 * Both sides of an association are index terms of ./tokenize.ts. The file is
 * read once, on first use; a missing or unreadable file gives a bridge with
 * no associations and one warning, never an error.
 * @module
 */
import { readFileSync } from 'node:fs';
import { errorMessage } from '../model/errors.js';

/** One catalog term a query term stands for. */
export interface BridgeTerm {
  /** The catalog's index term. */
  readonly term: string;
  /** How strongly the two go together, in (0, 1] (normalised PMI over the training pairs). */
  readonly weight: number;
  /** Short codes of the data sets that support it, `+`-joined (e.g. `"mt+st"`; see the file's `sources`). */
  readonly sources: string;
}

/** A loaded bridge: associations by query term, and what the file says about itself. */
export interface Vocabulary {
  /** Associated catalog terms of a query term, strongest first (empty when none). */
  bridge(term: string): ReadonlyArray<BridgeTerm>;
  /** Query terms with at least one association. */
  readonly size: number;
  /** Every query term with an association, in the file's order. */
  terms(): IterableIterator<string>;
  /** The tokenizer fingerprint the file was built with (probe text and its terms), when known. */
  readonly tokenizer: { readonly probe: string; readonly terms: readonly string[] } | undefined;
  /** What went wrong reading the file, if anything (the bridge is then empty). */
  readonly warning: string | undefined;
}

const NONE: ReadonlyArray<BridgeTerm> = Object.freeze([]);

/**
 * The default data file: `data/vocabulary.json` at the package root (two
 * folders up from src/query or dist/query). Resolved when first read, never
 * at import: a bundle without `import.meta.url` (a CommonJS build) gets an
 * empty bridge and a warning, not a crash at load.
 */
export function vocabularyUrl(): URL {
  return new URL('../../data/vocabulary.json', import.meta.url);
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A bridge from the parsed data file. Entries that are not
 * `[term, weight in (0,1], sources]` are skipped, not fatal.
 * @example
 * vocabularyFrom({ associations: { picture: [['imag', 0.6, 'mt']] } }).bridge('picture') // [{ term: 'imag', weight: 0.6, sources: 'mt' }]
 */
export function vocabularyFrom(document: unknown, warning?: string): Vocabulary {
  const map = new Map<string, ReadonlyArray<BridgeTerm>>();
  let tokenizer: Vocabulary['tokenizer'];
  if (isRecord(document)) {
    const t = document['tokenizer'];
    if (isRecord(t) && typeof t['probe'] === 'string' && Array.isArray(t['terms'])) {
      tokenizer = { probe: t['probe'], terms: t['terms'].filter((x): x is string => typeof x === 'string') };
    }
    const associations = document['associations'];
    if (isRecord(associations)) {
      for (const [from, list] of Object.entries(associations)) {
        if (!Array.isArray(list)) continue;
        const terms: BridgeTerm[] = [];
        for (const entry of list) {
          if (!Array.isArray(entry)) continue;
          const [term, weight, sources] = entry as unknown[];
          if (typeof term !== 'string' || term === from || typeof weight !== 'number' || !(weight > 0 && weight <= 1)) continue;
          terms.push(Object.freeze({ term, weight, sources: typeof sources === 'string' ? sources : '' }));
        }
        if (terms.length > 0) map.set(from, Object.freeze(terms));
      }
    }
  }
  return {
    bridge: (term) => map.get(term) ?? NONE,
    size: map.size,
    terms: () => map.keys(),
    tokenizer,
    warning,
  };
}

/**
 * Read a vocabulary file. Never throws: a missing or corrupt file gives an
 * empty bridge whose `warning` says why.
 * @example
 * loadVocabulary(new URL('file:///nowhere.json')).size // 0
 */
export function loadVocabulary(at?: URL): Vocabulary {
  let text: string;
  let url: URL;
  try {
    url = at ?? vocabularyUrl();
    text = readFileSync(url, 'utf8');
  } catch (error) {
    return vocabularyFrom(undefined, `toolcap search: no vocabulary bridge (${errorMessage(error)}); run \`npm run vocabulary\``);
  }
  try {
    return vocabularyFrom(JSON.parse(text) as unknown);
  } catch (error) {
    return vocabularyFrom(undefined, `toolcap search: the vocabulary bridge ${url.pathname} is not JSON (${errorMessage(error)}); run \`npm run vocabulary\``);
  }
}

let shipped: Vocabulary | undefined;

/**
 * The vocabulary shipped with the package, read on first use. A problem with
 * the file is reported once, as a process warning.
 */
export function defaultVocabulary(): Vocabulary {
  if (shipped === undefined) {
    shipped = loadVocabulary();
    if (shipped.warning !== undefined) process.emitWarning(shipped.warning, 'ToolcapWarning');
  }
  return shipped;
}

/**
 * The catalog terms a query term stands for in the shipped bridge, strongest first.
 * @example
 * bridgeTerms('picture') // [{ term: 'imag', weight: 0.52, sources: 'mt+st' }, ...]
 */
export function bridgeTerms(term: string): ReadonlyArray<BridgeTerm> {
  return defaultVocabulary().bridge(term);
}
