/**
 * MCP tool annotations: read verbatim into canonical `hints`, then turned
 * into the effects they are evidence for; and written back, from `hints`
 * and declared effects, by the one function both the dialect's export and
 * the MCP gateway call ({@link mcpAnnotationsOf}). The mapping table is in
 * docs/dialects/mcp.md.
 * @module
 */
import { declared } from '../../model/derive.js';
import { compact } from '../../model/objects.js';
import type { Effects, Execution, Hints, Tool } from '../../model/schema.js';
import type { SideEffect } from '../../model/vocabulary.js';
import type { ObjectReader } from '../../source/reader.js';
import { keep, withoutNulls, type JsonObject } from './base.js';

/** Each MCP annotation hint and its canonical `hints` member. */
const HINT_KEYS = [
  ['readOnlyHint', 'readOnly'],
  ['destructiveHint', 'destructive'],
  ['idempotentHint', 'idempotent'],
  ['openWorldHint', 'openWorld'],
] as const satisfies ReadonlyArray<readonly [string, keyof Hints]>;

/** What `annotations` holds, in canonical terms. */
export interface AnnotationFields {
  hints?: Hints | undefined;
  title?: string | undefined;
  /** Annotation fields to give back verbatim (nulls, unknown keys); `{}` keeps an empty object. */
  leftovers?: JsonObject | undefined;
}

/** Read a tool's `annotations` object (reported and left out when it is not one). */
export function readAnnotations(tool: ObjectReader): AnnotationFields {
  const read = tool.object('annotations');
  if (!read) return {};
  const { reader: a, nulls } = withoutNulls(read, ['title', ...HINT_KEYS.map(([key]) => key)]);
  const hints = compact<Hints>(Object.fromEntries(HINT_KEYS.map(([key, member]) => [member, a.boolean(key)])));
  const title = a.string('title');
  const rest = a.rest({ where: 'annotations' });
  const kept = keep({ ...nulls, ...rest });
  // An object that maps to nothing must still come back as written.
  const leftovers = kept ?? (hints === undefined && title === undefined ? {} : undefined);
  return { hints, title, leftovers };
}

/** Effects and execution fields read from hints, with the paths they fill (all derived). */
export interface InferredEffects {
  effects: Effects;
  execution: Execution;
  derived: string[];
}

/**
 * What the hints say about effects, reading each absent hint as MCP's
 * default (readOnly false, destructive true, idempotent false, openWorld
 * true), which is also the most restrictive reading. Undefined when no hint
 * is present: then there is no evidence at all, and the loader's `complete`
 * fills the conservative values.
 */
export function inferEffects(hints: Hints | undefined): InferredEffects | undefined {
  if (hints === undefined || Object.keys(hints).length === 0) return undefined;
  const openWorld = hints.openWorld ?? true;
  // read-only and destructive at once contradict each other: MCP would ignore the destructive hint, but the
  // server is not trusted, so the stricter reading wins (no server in the corpus says both)
  const readOnly = hints.readOnly === true && hints.destructive !== true;
  const { effects, execution } = readOnly ? readOnlyEffects(openWorld) : writeEffects(hints, openWorld);
  const derived = [
    ...Object.keys(effects).map((key) => `effects.${key}`),
    ...Object.keys(execution).map((key) => `execution.${key}`),
  ];
  return { effects, execution, derived };
}

/**
 * A read-only tool changes nothing, so it is fully reversible and repeating
 * it is harmless: MCP says `idempotentHint` and `destructiveHint` mean
 * nothing when `readOnlyHint` is true, so they are not consulted. Risk is
 * left to `complete`, which derives it from the side effect.
 */
function readOnlyEffects(openWorld: boolean): { effects: Effects; execution: Execution } {
  return {
    effects: { mode: 'read', sideEffects: openWorld ? 'read_external_service' : 'none', reversible: 'full' },
    execution: { idempotent: true, retryClass: 'safe' },
  };
}

/**
 * A tool that may write. An open world means remote state (`write`); a closed
 * one means state the server keeps itself, which MCP servers keep in files
 * (the filesystem, git and memory reference servers all do), hence
 * `filesystem`. Destructive writes cannot be undone and are high risk;
 * additive ones can be partly undone (what was added can be removed), and
 * their risk is left to `complete`. Only an idempotent tool may be retried
 * freely; otherwise the retry class is left to `complete`, which also
 * considers idempotency keys.
 */
function writeEffects(hints: Hints, openWorld: boolean): { effects: Effects; execution: Execution } {
  const destructive = hints.destructive ?? true;
  const idempotent = hints.idempotent ?? false;
  const sideEffects: SideEffect = openWorld ? 'write' : 'filesystem';
  return {
    effects: destructive
      ? { mode: 'write', sideEffects, reversible: 'none', risk: 'high' }
      : { mode: 'write', sideEffects, reversible: 'partial' },
    execution: idempotent ? { idempotent: true, retryClass: 'safe' } : { idempotent: false },
  };
}

/** Side effects that stay inside the server's own domain (openWorldHint false). */
const CLOSED_WORLD: ReadonlySet<SideEffect> = new Set(['none', 'compute', 'filesystem', 'database']);
/** Side effects that reach outside systems (openWorldHint true). `system` says neither, so MCP's default applies. */
const OPEN_WORLD: ReadonlySet<SideEffect> = new Set(['read_external_service', 'network', 'write']);

/**
 * The MCP hints of a tool: the one rule behind both `toolcap convert --to
 * mcp` and the gateway's `tools/list`, so a tool is annotated the same way
 * everywhere. Each hint the tool states in `hints` wins; a hint it does not
 * state is written only when a declared field supports it. Derived values
 * (listed in `derived`: `complete()`'s conservative fills, a dialect's
 * inferences) say nothing, so an MCP file round-trips and a client applies
 * MCP's own defaults (not read-only, destructive, not idempotent, open
 * world) where the manifest is silent. The table is in docs/dialects/mcp.md.
 * @example mcpHintsOf({ name: 't', effects: { mode: 'write', reversible: 'partial' } })
 * // { readOnly: false, destructive: false }
 */
export function mcpHintsOf(tool: Tool): Hints | undefined {
  const t = declared(tool);
  const stated = t.hints ?? {};
  const { mode, reversible, risk, sideEffects } = t.effects ?? {};
  const readOnly = stated.readOnly ?? (mode === undefined ? undefined : mode === 'read');
  const destructive =
    reversible === 'none' || risk === 'high' || risk === 'critical' ? true : reversible !== undefined ? false : undefined;
  return compact<Hints>({
    readOnly,
    // MCP: destructiveHint is meaningful only when readOnlyHint is false.
    destructive: stated.destructive ?? (readOnly === true ? undefined : destructive),
    idempotent: stated.idempotent ?? t.execution?.idempotent,
    openWorld:
      stated.openWorld ??
      (sideEffects === undefined ? undefined : CLOSED_WORLD.has(sideEffects) ? false : OPEN_WORLD.has(sideEffects) ? true : undefined),
  });
}

/**
 * A tool's MCP `annotations` hints ({@link mcpHintsOf}) in MCP's words;
 * `{}` when none is supported. Callers add `title` where they want it.
 * @example mcpAnnotationsOf({ name: 't', effects: { mode: 'read' } }) // { readOnlyHint: true }
 */
export function mcpAnnotationsOf(tool: Tool): JsonObject {
  const hints = mcpHintsOf(tool);
  const out: JsonObject = {};
  for (const [key, member] of HINT_KEYS) if (hints?.[member] !== undefined) out[key] = hints[member];
  return out;
}
