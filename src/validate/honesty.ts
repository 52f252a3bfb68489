/**
 * Honesty lints: a declared claim that the evidence contradicts. A manifest
 * (or an overlay) that calls a tool read-only while its HTTP method is
 * DELETE, its server says `readOnlyHint: false`, or its name says "revoke"
 * is either wrong or hiding something; either way a reviewer should look.
 * @module
 */
import { isDerived } from '../model/derive.js';
import { diagnostic, type Diagnostic } from '../model/diagnostics.js';
import { effectEvidence, type Evidence } from '../model/evidence.js';
import type { Tool } from '../model/schema.js';
import type { SideEffect } from '../model/vocabulary.js';
import type { Locate } from './rules.js';

const READ_ONLY_EFFECTS: ReadonlySet<SideEffect> = new Set(['none', 'compute', 'read_external_service']);

const LABEL: Record<Evidence['source'], string> = { 'http-method': 'its HTTP method is', hints: 'its server reports', permissions: 'its manifest', name: 'its name says', description: 'its description says' };

function describe(evidence: readonly Evidence[]): string {
  return evidence.map((e) => `${LABEL[e.source]} ${e.detail}`).join('; ');
}

const HINT = 'Fix the claim, or, if the evidence misleads (a read-only POST, a "reset" that only reads), say why in notes.';

/** One EVIDENCE_CONTRADICTS_CLAIM at a canonical field (no closure per tool). */
function warn(out: Diagnostic[], locate: Locate, path: string, what: string, against: readonly Evidence[]): void {
  // the located fields, then the hint: the key order these findings have always had
  const d = diagnostic('EVIDENCE_CONTRADICTS_CLAIM', `${what}, but ${describe(against)}.`, locate(path));
  d.hint = HINT;
  out.push(d);
}

/** Is the field at `path` a claim: declared, or one of the effects an explicit `permissions: []` states? */
function claim(tool: Tool, path: string, declaresNone: boolean): boolean {
  return !isDerived(tool, path) || (declaresNone && (path === 'effects.mode' || path === 'effects.sideEffects'));
}

/** The evidence that passes `keep`: the list itself when all of it does (no copy; it is only read). */
function only(evidence: Evidence[], keep: (e: Evidence) => boolean): Evidence[] {
  for (let i = 0; i < evidence.length; i++) if (!keep(evidence[i]!)) return evidence.filter(keep);
  return evidence;
}

const saysWrite = (e: Evidence) => e.says !== 'read';
const saysDestructive = (e: Evidence) => e.says === 'destructive';

/** Warnings where declared effects claim less than the evidence shows. */
export function lintHonesty(tool: Tool, locate: Locate): Diagnostic[] {
  const mode = tool.effects?.mode;
  const sideEffects = tool.effects?.sideEffects;
  // An explicit empty permission list is the author's statement of no side effects (dialects/pylot/permissions.ts).
  const declaresNone = tool.permissions?.length === 0 && mode === 'read' && sideEffects === 'none';
  const claimsRead = (mode === 'read' && claim(tool, 'effects.mode', declaresNone)) || (sideEffects !== undefined && READ_ONLY_EFFECTS.has(sideEffects) && claim(tool, 'effects.sideEffects', declaresNone));
  const claimsReversible = tool.effects?.reversible === 'full' && claim(tool, 'effects.reversible', declaresNone);
  if (!claimsRead && !claimsReversible) return []; // no claim to contradict: skip gathering evidence
  const evidence = effectEvidence(tool);
  if (evidence.length === 0) return [];
  const writes = only(evidence, saysWrite);
  const destroys = only(evidence, saysDestructive);
  const out: Diagnostic[] = [];

  if (writes.length > 0) {
    if (declaresNone && isDerived(tool, 'effects.mode')) warn(out, locate, 'effects.mode', 'Declared "permissions: []" (no side effects)', writes);
    else if (mode === 'read' && claim(tool, 'effects.mode', declaresNone)) warn(out, locate, 'effects.mode', 'Declared mode "read"', writes);
    // a declared write mode already tells the truth, whatever the side-effect category
    else if (sideEffects !== undefined && READ_ONLY_EFFECTS.has(sideEffects) && claim(tool, 'effects.sideEffects', declaresNone) && !(mode !== undefined && claim(tool, 'effects.mode', declaresNone)))
      warn(out, locate, 'effects.sideEffects', `Declared side effects "${sideEffects}"`, writes);
  }
  if (destroys.length > 0 && claimsReversible) {
    warn(out, locate, 'effects.reversible', 'Declared fully reversible', destroys);
  }
  return out;
}
