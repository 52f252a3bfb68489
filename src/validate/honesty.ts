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

function describe(evidence: readonly Evidence[]): string {
  const label: Record<Evidence['source'], string> = { 'http-method': 'its HTTP method is', hints: 'its server reports', permissions: 'its manifest', name: 'its name says', description: 'its description says' };
  return evidence.map((e) => `${label[e.source]} ${e.detail}`).join('; ');
}

/** Warnings where declared effects claim less than the evidence shows. */
export function lintHonesty(tool: Tool, locate: Locate): Diagnostic[] {
  const mode = tool.effects?.mode;
  const sideEffects = tool.effects?.sideEffects;
  // An explicit empty permission list is the author's statement of no side effects (dialects/pylot/permissions.ts).
  const declaresNone = tool.permissions?.length === 0 && mode === 'read' && sideEffects === 'none';
  const claim = (path: string) => !isDerived(tool, path) || (declaresNone && (path === 'effects.mode' || path === 'effects.sideEffects'));
  const claimsRead = (mode === 'read' && claim('effects.mode')) || (sideEffects !== undefined && READ_ONLY_EFFECTS.has(sideEffects) && claim('effects.sideEffects'));
  const claimsReversible = tool.effects?.reversible === 'full' && claim('effects.reversible');
  if (!claimsRead && !claimsReversible) return []; // no claim to contradict: skip gathering evidence
  const evidence = effectEvidence(tool);
  const writes = evidence.filter((e) => e.says !== 'read');
  const destroys = evidence.filter((e) => e.says === 'destructive');
  const out: Diagnostic[] = [];
  const warn = (path: string, what: string, against: readonly Evidence[]) =>
    out.push(
      diagnostic('EVIDENCE_CONTRADICTS_CLAIM', `${what}, but ${describe(against)}.`, {
        ...locate(path),
        hint: 'Fix the claim, or, if the evidence misleads (a read-only POST, a "reset" that only reads), say why in notes.',
      }),
    );

  if (writes.length > 0) {
    if (declaresNone && isDerived(tool, 'effects.mode')) warn('effects.mode', 'Declared "permissions: []" (no side effects)', writes);
    else if (mode === 'read' && claim('effects.mode')) warn('effects.mode', 'Declared mode "read"', writes);
    // a declared write mode already tells the truth, whatever the side-effect category
    else if (sideEffects !== undefined && READ_ONLY_EFFECTS.has(sideEffects) && claim('effects.sideEffects') && !(mode !== undefined && claim('effects.mode')))
      warn('effects.sideEffects', `Declared side effects "${sideEffects}"`, writes);
  }
  if (destroys.length > 0 && claimsReversible) {
    warn('effects.reversible', 'Declared fully reversible', destroys);
  }
  return out;
}
