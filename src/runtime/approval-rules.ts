/**
 * When a call needs human approval: when the manifest says so
 * (`approval.required`, or `approval.consent`), or when a configured policy
 * rule matches the tool and the caller (by side-effect severity, risk,
 * mode, tool name, persona, audit status), and the built-in rule that an
 * `experimental` tool needs approval. Rules can only add approval, never waive one
 * the manifest asks for. The matching rule also says whether the requester
 * may approve its own call (`selfApproval`) and whether an MCP elicitation
 * may decide it (`elicitation`).
 * @module
 */
import type { Tool } from '../model/schema.js';
import { RISK_LEVELS, SIDE_EFFECTS, rank, type Mode, type RiskLevel, type SideEffect } from '../model/vocabulary.js';
import { auditGateOf, type AuditGate } from '../registry/audit-gate.js';

/** One policy rule: every condition given must hold. */
export interface ApprovalRule {
  /** Tool names, exact or a prefix ending in `*` (`github.*`). */
  tools?: string[];
  /** Caller personas. */
  personas?: string[];
  /** Side effects at least this severe. */
  minSideEffects?: SideEffect;
  /** Risk at least this high. */
  minRisk?: RiskLevel;
  /** Modes (`write`, `mixed`). */
  modes?: Mode[];
  /** Audit states (Pylot `audit_status`; `unset` for tools that declare none). */
  auditStatus?: AuditGate[];
  /** Shown to the reviewer. */
  reason?: string;
  /**
   * The principal that asked may approve its own request (single-user
   * setups). Off by default: four eyes. @default false
   */
  selfApproval?: boolean;
  /**
   * An MCP client may approve through elicitation. The requesting agent's own
   * client answers an elicitation, so it is a self-approval too and needs
   * `selfApproval` as well. @default true for tools whose mode is `read`, false otherwise
   */
  elicitation?: boolean;
}

const nameMatches = (patterns: readonly string[], name: string) =>
  patterns.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : p === name));

const atLeast = <T extends string>(order: readonly T[], value: T | undefined, floor: T) => {
  const r = rank(order, value);
  // silence reads as the most severe value: a tool that does not say is not let off
  return r < 0 || r >= rank(order, floor);
};

function ruleMatches(rule: ApprovalRule, tool: Tool, persona: string | undefined): boolean {
  if (rule.tools && !nameMatches(rule.tools, tool.name)) return false;
  if (rule.personas && (persona === undefined || !rule.personas.includes(persona))) return false;
  if (rule.minSideEffects && !atLeast(SIDE_EFFECTS, tool.effects?.sideEffects, rule.minSideEffects)) return false;
  if (rule.minRisk && !atLeast(RISK_LEVELS, tool.effects?.risk, rule.minRisk)) return false;
  if (rule.modes && !rule.modes.includes(tool.effects?.mode ?? 'write')) return false;
  if (rule.auditStatus && !rule.auditStatus.includes(auditGateOf(tool))) return false;
  return true;
}

/**
 * Rules every runtime has after the configured ones: a tool its author marks
 * `experimental` is listed, but each call waits for a person. Rules only add
 * approval, so this cannot be waived by config; an operator who has reviewed
 * such a tool marks it `audit_status: trusted` (an override file does).
 */
export const BUILT_IN_RULES: readonly ApprovalRule[] = Object.freeze([
  Object.freeze<ApprovalRule>({ auditStatus: ['experimental'], reason: 'the tool\'s audit_status is experimental: a person approves each call until it is marked trusted' }),
]);

/**
 * Why this call needs approval, or undefined when it does not.
 * @example approvalReason(tool, 'atlas', [{ minRisk: 'high', reason: 'high-risk tools need review' }])
 */
export function approvalReason(tool: Tool, persona: string | undefined, rules: readonly ApprovalRule[] = []): string | undefined {
  if (tool.approval?.required) return 'the manifest requires approval for each call (approval.required)';
  if (tool.approval?.consent) return 'the manifest requires the user\'s consent (approval.consent)';
  const rule = matchingRule(tool, persona, rules);
  if (rule) return rule.reason ?? `a policy rule requires approval (${JSON.stringify(rule)})`;
  return undefined;
}

/**
 * The first rule that matches the tool and persona: the one whose
 * `selfApproval` and `elicitation` settings govern the tool's approvals.
 * @example matchingRule(tool, 'atlas', [{ tools: ['notes.*'], selfApproval: true }])?.selfApproval // true
 */
export function matchingRule(tool: Tool, persona: string | undefined, rules: readonly ApprovalRule[]): ApprovalRule | undefined {
  return rules.find((r) => ruleMatches(r, tool, persona)) ?? BUILT_IN_RULES.find((r) => ruleMatches(r, tool, persona));
}
