/**
 * Why this tool and not another: the record a postmortem needs of how a
 * tool was chosen. A search answer (`GET /search`, the MCP tool search,
 * `toolcap search`) is kept as a selection, with its id in the answer; a
 * call that passes the id back (HTTP body `selection`, MCP
 * `_meta["toolcap.dev/selection"]`, `toolcap call --selection`) records on
 * its span and in its audit lines the candidates it was selected over
 * (ranked below it within the answer) and any ranked above it, each with
 * its score, fit and penalties.
 *
 * Selections are bounded (least recently used beyond `capacity`, none
 * older than `ttlMs`, and at most `perOwner` for one owner: its own least
 * recently used goes first, so one caller's flood of searches cannot push
 * out everyone else's) and bound to whoever was answered: another principal
 * passing the id gets nothing (an unknown id, as if it never existed).
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Attributes } from '@opentelemetry/api';

/** One ranked candidate as a selection keeps it. */
export interface SelectionCandidate {
  name: string;
  rank: number;
  score: number;
  fit: number;
  /** The ranking's penalties: code, points, why. */
  penalties: Array<{ code: string; points: number; reason: string }>;
}

/** What a call's chosen tool was selected over, from one search answer. */
export interface SelectedOver {
  /** The selection id. */
  id: string;
  /** The search query (as the caller wrote it; redacted where it is recorded). */
  query: string;
  /** The chosen tool's rank in the answer; null when the answer did not hold it. */
  rank: number | null;
  /** Candidates ranked below the chosen tool (all of them when it was not in the answer). */
  selectedOver: SelectionCandidate[];
  /** Candidates ranked above the chosen tool: the caller passed them over. */
  rankedAbove: SelectionCandidate[];
}

/** Options of {@link Selections}. */
export interface SelectionOptions {
  /** Selections kept; the least recently used goes first. @default 1000 */
  capacity?: number;
  /** A selection is forgotten this long after its search. @default 900000 (15 min) */
  ttlMs?: number;
  /**
   * Selections kept for one owner; its least recently used goes first.
   * Searches are not rate-limited: without it one caller's 1,000 searches
   * pushed every other principal's selections out. @default 100 (at most capacity)
   */
  perOwner?: number;
  clock?: () => number;
}

/** Candidates kept per selection (a search answers at most 50; the tail says little). @default 20 */
export const MAX_SELECTION_CANDIDATES = 20;

/** The shape of a selection id: `sel_` and 22 base64url characters (a random UUID's 128 bits, 122 of them random). */
export const SELECTION_ID = /^sel_[A-Za-z0-9_-]{22}$/;

interface Entry {
  owner: string;
  query: string;
  candidates: SelectionCandidate[];
  at: number;
}

/**
 * The owner a selection is bound to: the principal's id, or `''` for a
 * trusted caller without one (in-process, the local CLI).
 */
export const selectionOwner = (principal: { id: string } | undefined): string => principal?.id ?? '';

/**
 * The selections of one runtime.
 * @example
 * const id = selections.record(selectionOwner(principal), 'open an issue', candidates);
 * selections.resolve(id, selectionOwner(principal), 'github.create_issue')?.selectedOver // what ranked below it
 */
export class Selections {
  readonly #entries = new Map<string, Entry>();
  /** Selections held per owner. */
  readonly #owned = new Map<string, number>();
  readonly #capacity: number;
  readonly #perOwner: number;
  readonly #ttlMs: number;
  readonly #clock: () => number;

  constructor(options: SelectionOptions = {}) {
    this.#capacity = Math.max(1, options.capacity ?? 1000);
    this.#perOwner = Math.max(1, options.perOwner ?? Math.min(this.#capacity, 100));
    this.#ttlMs = options.ttlMs ?? 15 * 60_000;
    this.#clock = options.clock ?? Date.now;
  }

  /** Selections held now (expired ones included until they are looked at or pushed out). */
  get size(): number {
    return this.#entries.size;
  }

  /** Keep a search answer for `owner`; its id. */
  record(owner: string, query: string, candidates: readonly SelectionCandidate[]): string {
    // randomUUID draws from a cached pool (randomBytes per id cost ~30 µs a search); 122 random bits
    const id = `sel_${Buffer.from(randomUUID().replaceAll('-', ''), 'hex').toString('base64url')}`;
    this.#keep(id, { owner, query, candidates: candidates.slice(0, MAX_SELECTION_CANDIDATES).map(copy), at: this.#clock() });
    return id;
  }

  /**
   * Keep a selection made elsewhere under its own id (the CLI's selection
   * file: `toolcap search` and `toolcap call` are separate processes).
   * Ignored when the id is not of the selection shape.
   */
  adopt(id: string, owner: string, query: string, candidates: readonly SelectionCandidate[], at: number): void {
    if (!SELECTION_ID.test(id)) return;
    this.#forget(id);
    this.#keep(id, { owner, query, candidates: candidates.slice(0, MAX_SELECTION_CANDIDATES).map(copy), at });
  }

  /** Add an entry: the owner's least recently used goes past {@link SelectionOptions.perOwner}, anyone's past capacity. */
  #keep(id: string, entry: Entry): void {
    if ((this.#owned.get(entry.owner) ?? 0) >= this.#perOwner) {
      for (const [old, e] of this.#entries) {
        if (e.owner !== entry.owner) continue;
        this.#forget(old);
        break;
      }
    }
    this.#entries.set(id, entry);
    this.#owned.set(entry.owner, (this.#owned.get(entry.owner) ?? 0) + 1);
    while (this.#entries.size > this.#capacity) this.#forget(this.#entries.keys().next().value as string);
  }

  /** Drop an entry, and its count. */
  #forget(id: string): void {
    const entry = this.#entries.get(id);
    if (entry === undefined) return;
    this.#entries.delete(id);
    const left = (this.#owned.get(entry.owner) ?? 1) - 1;
    if (left > 0) this.#owned.set(entry.owner, left);
    else this.#owned.delete(entry.owner);
  }

  /**
   * What `tool` was selected over in selection `id`; undefined when the id
   * is unknown, expired, or `owner` was not the one answered.
   */
  resolve(id: string, owner: string, tool: string): SelectedOver | undefined {
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    if (this.#clock() - entry.at > this.#ttlMs) {
      this.#forget(id);
      return undefined;
    }
    if (entry.owner !== owner) return undefined;
    // used: it stays longer under pressure
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    const chosen = entry.candidates.find((c) => c.name === tool);
    const rank = chosen?.rank ?? null;
    return {
      id,
      query: entry.query,
      rank,
      selectedOver: entry.candidates.filter((c) => c.name !== tool && (rank === null || c.rank > rank)).map(copy),
      rankedAbove: rank === null ? [] : entry.candidates.filter((c) => c.rank < rank).map(copy),
    };
  }
}

/**
 * A ranked candidate of any search answer (`/search`'s, the MCP search's
 * matches) as a selection keeps it; without penalties: none.
 */
export function selectionCandidate(c: { name: string; rank: number; score: number; fit: number; penalties?: ReadonlyArray<{ code: string; points: number; reason: string }> | undefined }): SelectionCandidate {
  return { name: c.name, rank: c.rank, score: c.score, fit: c.fit, penalties: (c.penalties ?? []).map((p) => ({ code: p.code, points: p.points, reason: p.reason })) };
}

const copy = (c: SelectionCandidate): SelectionCandidate => ({ name: c.name, rank: c.rank, score: c.score, fit: c.fit, penalties: c.penalties.map((p) => ({ code: p.code, points: p.points, reason: p.reason })) });

/** One candidate as a span attribute value: name, rank, score, fit and penalties, as JSON. */
const candidateText = (c: SelectionCandidate) => JSON.stringify({ name: c.name, rank: c.rank, score: c.score, fit: c.fit, penalties: c.penalties.map((p) => `${p.code} -${p.points}: ${p.reason}`) });

/**
 * The span attributes of a call's selection: `toolcap.selection.id`,
 * `.found`, `.query`, `.rank`, `toolcap.selected_over` (one JSON text per
 * candidate ranked below) and `toolcap.selection.ranked_above`.
 */
export function selectionAttributes(id: string, selected: SelectedOver | undefined): Attributes {
  if (!selected) return { 'toolcap.selection.id': id, 'toolcap.selection.found': false };
  return {
    'toolcap.selection.id': id,
    'toolcap.selection.found': true,
    'toolcap.selection.query': selected.query,
    'toolcap.selection.rank': selected.rank ?? -1,
    'toolcap.selected_over': selected.selectedOver.map(candidateText),
    'toolcap.selection.ranked_above': selected.rankedAbove.map(candidateText),
  };
}

/** A selection as an audit line's detail holds it. */
export function selectionDetail(id: string, selected: SelectedOver | undefined): Record<string, unknown> {
  if (!selected) return { id, found: false };
  return { id, found: true, query: selected.query, rank: selected.rank, selectedOver: selected.selectedOver, rankedAbove: selected.rankedAbove };
}
