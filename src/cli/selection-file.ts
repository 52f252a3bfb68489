/**
 * The CLI's selections: `toolcap search` and `toolcap call` run as separate
 * processes, so a search's selection is kept in a small file,
 * `.toolcap/selections.json` in the config's folder (or the current one),
 * written with mode 0600. It holds at most {@link MAX_SAVED} selections,
 * none older than the runtime's TTL, each bound to the principal the CLI
 * acts as (the config's local principal), like the server's.
 * @module
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isPlainObject } from '../model/objects.js';
import { createRedactor } from '../runtime/containment/redact.js';
import { MAX_SELECTION_CANDIDATES, SELECTION_ID, type SelectionCandidate, Selections } from '../runtime/selections.js';

/** Selections kept in the file; the oldest go first. @default 100 */
export const MAX_SAVED = 100;

/** A saved selection is dropped this long after its search (as the runtime forgets one). @default 15 min */
export const SAVED_TTL_MS = 15 * 60_000;

/** One saved selection. */
export interface SavedSelection {
  id: string;
  owner: string;
  query: string;
  candidates: SelectionCandidate[];
  at: number;
}

/** The file of a project: `.toolcap/selections.json` in `root`. */
export const selectionFileFor = (root: string): string => join(root, '.toolcap', 'selections.json');

function read(file: string): SavedSelection[] {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    const list = isPlainObject(parsed) && Array.isArray(parsed['selections']) ? parsed['selections'] : [];
    // a hand-edited or broken file is read as far as it is well formed
    return list.filter((s): s is SavedSelection => isPlainObject(s) && typeof s['id'] === 'string' && SELECTION_ID.test(s['id']) && typeof s['owner'] === 'string' && typeof s['query'] === 'string' && Array.isArray(s['candidates']) && typeof s['at'] === 'number');
  } catch {
    return [];
  }
}

/**
 * Keep a search's ranking for `owner`; its id. Expired and surplus
 * selections are dropped on the way.
 * @example const id = saveSelection(selectionFileFor(root), 'local', 'reverse text', candidates);
 */
export function saveSelection(file: string, owner: string, query: string, candidates: readonly SelectionCandidate[], now = Date.now()): string {
  // the id is made as the server makes it
  const id = new Selections().record(owner, query, []);
  // a new sink: the query is written through the redactor (token shapes), as spans and audit lines are
  const saved: SavedSelection = { id, owner, query: createRedactor().redactText(query), candidates: candidates.slice(0, MAX_SELECTION_CANDIDATES), at: now };
  const list = [...read(file).filter((s) => now - s.at <= SAVED_TTL_MS), saved].slice(-MAX_SAVED);
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ selections: list })}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
  return id;
}

/** The saved selection `id`, or undefined (unknown, expired). */
export function loadSelection(file: string, id: string, now = Date.now()): SavedSelection | undefined {
  return read(file).find((s) => s.id === id && now - s.at <= SAVED_TTL_MS);
}
