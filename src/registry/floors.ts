/**
 * Floors: what a server reports about its own tool (MCP annotations, kept as
 * `hints`) may tighten a reviewed manifest for that tool, never loosen it.
 *
 * A discovered tool (from an MCP server, in a `discovered` layer) is the
 * base; a reviewed manifest for the same name in a later layer overrides it
 * field by field as usual, so the server can never loosen what a person
 * reviewed. Then the server's explicit hints set a floor on the result:
 *
 * | hint (explicit) | floor |
 * | --- | --- |
 * | `readOnlyHint: false` | mode at least `mixed` |
 * | `destructiveHint: true` (and not read-only) | mode `write`, reversible at least `partial` |
 * | `idempotentHint: false` | not idempotent; retry class at most `guarded` |
 * | `openWorldHint: true` | side effects at least `read_external_service` |
 *
 * A hint the server leaves out sets no floor (MCP's defaults are already the
 * conservative reading the discovery applied).
 *
 * The other way round, a server hint looser than what the reviewed manifest
 * declares is dropped ({@link withoutLooserHints}): the gateway's
 * `tools/list` and `convert --to mcp` write a stated hint as stated, so a
 * server's `readOnlyHint: true` kept over a reviewed write told every MCP
 * client the write was read-only; without it the declared effects say.
 * @module
 */
import type { Tool } from '../model/schema.js';
import { MODES, REVERSIBILITY, RETRY_CLASSES, SIDE_EFFECTS, mostRestrictive, rank, type Mode, type Reversibility, type SideEffect } from '../model/vocabulary.js';

/** Side effects that reach outside systems: a closed-world hint says less (dialects/mcp/annotations.ts). */
const OPEN_WORLD: ReadonlySet<SideEffect> = new Set(['read_external_service', 'network', 'write']);

export interface Floor {
  mode?: Mode;
  reversible?: Reversibility;
  sideEffects?: SideEffect;
  notIdempotent?: boolean;
}

/** The floor a tool's hints set, or undefined when they set none. */
export function floorOf(tool: Pick<Tool, 'hints'>): Floor | undefined {
  const h = tool.hints;
  if (!h) return undefined;
  const floor: Floor = {};
  if (h.readOnly === false) floor.mode = 'mixed';
  if (h.destructive === true && h.readOnly !== true) {
    floor.mode = 'write';
    floor.reversible = 'partial';
  }
  if (h.idempotent === false) floor.notIdempotent = true;
  if (h.openWorld === true) floor.sideEffects = 'read_external_service';
  return Object.keys(floor).length > 0 ? floor : undefined;
}

/** The tool raised to the floor (values below it replaced; silence left for completion to read conservatively). */
export function applyFloor(tool: Tool, floor: Floor): Tool {
  const e = tool.effects;
  const effects = { ...e };
  if (floor.mode && e?.mode !== undefined) effects.mode = mostRestrictive(MODES, e.mode, floor.mode) as Mode;
  if (floor.reversible && e?.reversible !== undefined) effects.reversible = mostRestrictive(REVERSIBILITY, e.reversible, floor.reversible) as Reversibility;
  if (floor.sideEffects && e?.sideEffects !== undefined) effects.sideEffects = mostRestrictive(SIDE_EFFECTS, e.sideEffects, floor.sideEffects) as SideEffect;
  let execution = tool.execution;
  if (floor.notIdempotent && execution) {
    execution = { ...execution };
    if (execution.idempotent === true) execution.idempotent = false;
    // "safe" retries assume idempotence: the most a non-idempotent tool gets is "guarded"
    if (execution.retryClass !== undefined && rank(RETRY_CLASSES, execution.retryClass) > rank(RETRY_CLASSES, 'guarded')) execution.retryClass = 'guarded';
  }
  const changed = JSON.stringify(effects) !== JSON.stringify(e ?? {}) || execution !== tool.execution;
  if (!changed) return tool;
  return { ...tool, ...(e !== undefined ? { effects } : {}), ...(execution !== undefined ? { execution } : {}) };
}

/**
 * The tool without the hints that claim less than its effects and execution
 * say (read-only over a write, non-destructive over an irreversible or
 * high-risk tool, idempotent over a non-idempotent one, closed-world over
 * open-world side effects); hints that agree or that nothing contradicts stay.
 */
export function withoutLooserHints(tool: Tool): Tool {
  const h = tool.hints;
  if (!h) return tool;
  const { mode, reversible, risk, sideEffects } = tool.effects ?? {};
  const hints = { ...h };
  if (hints.readOnly === true && mode !== undefined && mode !== 'read') delete hints.readOnly;
  if (hints.destructive === false && (reversible === 'none' || risk === 'high' || risk === 'critical')) delete hints.destructive;
  if (hints.idempotent === true && tool.execution?.idempotent === false) delete hints.idempotent;
  if (hints.openWorld === false && sideEffects !== undefined && OPEN_WORLD.has(sideEffects)) delete hints.openWorld;
  if (Object.keys(hints).length === Object.keys(h).length) return tool;
  const { hints: _h, ...rest } = tool;
  return Object.keys(hints).length > 0 ? { ...rest, hints } : (rest as Tool);
}
