/**
 * What changed in the last reloads, classified as `toolcap diff` classifies
 * it (the drift stage's `diffTool`: escalation, relaxation, neutral, added,
 * removed). The console keeps the snapshots on either side of the last few
 * swaps and diffs a pair only when a page asks, once.
 * @module
 */
import { diffTool, summarizeDiff, type DiffSummary, type ToolDiff } from '../../drift/diff.js';
import type { Diagnostic } from '../../model/diagnostics.js';
import type { Registry } from '../../registry/registry.js';
import type { Snapshot } from '../../registry/snapshot.js';

/** One reload the console saw. */
export interface ReloadRecord {
  readonly at: string;
  readonly kind: 'reloaded' | 'failed';
  /** The version serving after it (for a failure: the last good one, still serving). */
  readonly version: number;
  readonly changedFiles: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
}

interface Swap {
  readonly record: ReloadRecord;
  readonly before: Snapshot;
  readonly after: Snapshot;
  diff?: { tools: ToolDiff[]; summary: DiffSummary };
}

/** Reloads remembered. */
const KEPT = 5;

/** The change history of one registry, from the moment the console started. */
export class ChangeHistory {
  readonly #registry: Registry;
  #last: Snapshot | undefined;
  readonly #swaps: Swap[] = [];
  readonly #failures: ReloadRecord[] = [];

  constructor(registry: Registry) {
    this.#registry = registry;
    this.#last = this.#current();
    registry.subscribe((event) => {
      if (event.kind === 'reloaded') {
        const after = this.#current();
        const record: ReloadRecord = { at: event.at, kind: 'reloaded', version: event.version, changedFiles: event.changed, diagnostics: event.diagnostics };
        if (this.#last && after && after !== this.#last) this.#swaps.unshift({ record, before: this.#last, after });
        if (this.#swaps.length > KEPT) this.#swaps.pop();
        this.#last = after;
      } else if (event.kind === 'failed') {
        this.#failures.unshift({ at: event.at, kind: 'failed', version: event.version, changedFiles: event.changed, diagnostics: event.diagnostics });
        if (this.#failures.length > KEPT) this.#failures.pop();
      }
    });
  }

  #current(): Snapshot | undefined {
    return this.#registry.status().version === 0 ? undefined : this.#registry.snapshot();
  }

  /** The last reloads and failures, newest first. */
  reloads(): ReloadRecord[] {
    return [...this.#swaps.map((s) => s.record), ...this.#failures].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  }

  /** Each remembered swap's diff (tools that changed only), newest first. */
  diffs(): Array<{ record: ReloadRecord; fromVersion: number; tools: ToolDiff[]; summary: DiffSummary }> {
    return this.#swaps.map((swap) => ({ record: swap.record, fromVersion: swap.before.version, ...diffOf(swap) }));
  }

  /** What happened to one tool (by merge key) in the remembered swaps, newest first; swaps that left it alone are skipped. */
  forTool(key: string): Array<{ record: ReloadRecord; fromVersion: number; diff: ToolDiff }> {
    const out: Array<{ record: ReloadRecord; fromVersion: number; diff: ToolDiff }> = [];
    for (const swap of this.#swaps) {
      const diff = diffOf(swap).tools.find((t) => t.key === key);
      if (diff) out.push({ record: swap.record, fromVersion: swap.before.version, diff });
    }
    return out;
  }
}

/** A swap's diff, computed once: tools whose frozen object is the same on both sides are unchanged without a look. */
function diffOf(swap: Swap): { tools: ToolDiff[]; summary: DiffSummary } {
  if (swap.diff) return swap.diff;
  const before = swap.before.byKey;
  const after = swap.after.byKey;
  const tools: ToolDiff[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(key);
    const b = after.get(key);
    if (a === b) continue;
    const d = diffTool(key, a, b);
    if (d.status !== 'unchanged') tools.push(d);
  }
  tools.sort((x, y) => (x.key < y.key ? -1 : 1));
  return (swap.diff = { tools, summary: summarizeDiff(tools) });
}
