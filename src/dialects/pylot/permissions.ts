/**
 * What Pylot permission words say about a tool's effects. Pylot declares
 * permissions, not effects; toolcap reads the effects off them with the table
 * below and marks the result as derived, so exporters never write it back.
 * @module
 */
import { mostRestrictive, SIDE_EFFECTS, type Mode, type SideEffect } from '../../model/vocabulary.js';

/** Whether a permission only reads, may write, or neither says. */
type Access = 'read' | 'write' | 'unspecified';

interface Implication {
  readonly sideEffects: SideEffect;
  readonly access: Access;
}

/**
 * Permission words toolcap understands. Words not listed imply nothing: an
 * unknown word must not make a tool look safer, so it also blocks a `read`
 * mode. A shell can change anything, hence `write`; `network` says nothing
 * about direction.
 */
export const PERMISSION_EFFECTS: ReadonlyMap<string, Implication> = new Map<string, Implication>([
  ['read_repo', { sideEffects: 'filesystem', access: 'read' }],
  ['read_files', { sideEffects: 'filesystem', access: 'read' }],
  ['write_repo', { sideEffects: 'filesystem', access: 'write' }],
  ['write_files', { sideEffects: 'filesystem', access: 'write' }],
  ['network', { sideEffects: 'network', access: 'unspecified' }],
  ['shell', { sideEffects: 'system', access: 'write' }],
  ['exec', { sideEffects: 'system', access: 'write' }],
  ['process', { sideEffects: 'system', access: 'write' }],
]);

/** Effects read off a permission list; a field is absent when the list does not imply it. */
export interface ImpliedEffects {
  sideEffects?: SideEffect;
  mode?: Mode;
}

/** What `permissions: []` declares: no side effects, read-only. */
export const NO_PERMISSIONS: Readonly<ImpliedEffects> = Object.freeze({ sideEffects: 'none', mode: 'read' });

/**
 * The effects a permission list implies: the most severe side-effect category
 * of its known words, `write` mode when any word writes, `read` mode when
 * every word is a known read.
 *
 * @example
 * impliedEffects(['read_repo', 'network']) // { sideEffects: 'network' }
 * impliedEffects(['read_repo'])            // { sideEffects: 'filesystem', mode: 'read' }
 * impliedEffects([])                       // { sideEffects: 'none', mode: 'read' }
 */
export function impliedEffects(permissions: readonly string[]): ImpliedEffects {
  // An explicit empty list is a statement: the tool needs no capability at all
  // (no files, no network, no processes), so it changes nothing outside itself.
  // Silence (no `permissions` key) is not this statement and implies nothing.
  if (permissions.length === 0) return NO_PERMISSIONS;
  let sideEffects: SideEffect | undefined;
  let writes = false;
  let allReads = permissions.length > 0;
  for (const word of permissions) {
    const implication = PERMISSION_EFFECTS.get(word);
    if (implication?.access !== 'read') allReads = false;
    if (!implication) continue;
    sideEffects = mostRestrictive(SIDE_EFFECTS, sideEffects, implication.sideEffects);
    if (implication.access === 'write') writes = true;
  }
  const mode: Mode | undefined = writes ? 'write' : allReads ? 'read' : undefined;
  return {
    ...(sideEffects !== undefined ? { sideEffects } : {}),
    ...(mode !== undefined ? { mode } : {}),
  };
}
