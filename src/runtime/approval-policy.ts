/**
 * Who may decide an approval, and through which channel. Four eyes by
 * default: the principal that asked cannot approve its own request, unless
 * the matching rule (`selfApproval`) or the runtime (`selfApproval`) allows
 * it for single-user setups. Within that, `mayDecide` (identity) judges the
 * principal's role and grants.
 *
 * An MCP elicitation is answered by the requesting agent's own client, so a
 * decision through it is a self-approval: it needs the elicitation channel
 * allowed (by the rule or the runtime; by default only for tools whose mode
 * is `read`, never for writes) and self-approval allowed too.
 * @module
 */
import type { Tool } from '../model/schema.js';
import type { DecisionChannel } from '../store/types.js';
import { matchingRule, type ApprovalRule } from './approval-rules.js';
import { CallError } from './errors.js';
import { mayDecide, type Principal } from './identity/principal.js';

/** Who decides, where, and why. */
export interface Decision {
  /** The authenticated principal deciding: the audit actor and `decidedByPrincipal`. */
  principal?: Principal;
  /** Where the decision was made. */
  channel?: DecisionChannel;
  note?: string;
  /** The reviewer's name, for library use without a principal (ignored when a principal is given). */
  by?: string;
}

/** The parts of an approval a decision is judged by. */
export interface DecisionSubject {
  id: string;
  tool: string;
  persona: string | null;
  requestedByPrincipal?: string;
}

export interface ApprovalPolicyOptions {
  rules: readonly ApprovalRule[];
  /** Every requester may approve its own requests. @default false */
  selfApproval?: boolean | undefined;
  /** MCP elicitation may decide any approval. @default only tools whose mode is `read` */
  elicitation?: boolean | undefined;
  /** The tool an approval is for, as its persona sees it now (undefined when it is gone). */
  toolOf: (name: string, persona: string | undefined) => Tool | undefined;
}

/**
 * The decision rules of one runtime.
 * @example policy.check(approval, { principal: alice, channel: 'http' }, 'approve') // throws SELF_APPROVAL when alice asked
 */
export class ApprovalPolicy {
  readonly #o: ApprovalPolicyOptions;

  constructor(options: ApprovalPolicyOptions) {
    this.#o = options;
  }

  #rule(approval: DecisionSubject): { tool: Tool | undefined; rule: ApprovalRule | undefined } {
    const persona = approval.persona ?? undefined;
    const tool = this.#o.toolOf(approval.tool, persona);
    return { tool, rule: tool ? matchingRule(tool, persona, this.#o.rules) : undefined };
  }

  /** Whether the requester may approve this approval itself (the matching rule first, then the runtime). */
  selfApprovalAllowed(approval: DecisionSubject): boolean {
    return this.#rule(approval).rule?.selfApproval ?? this.#o.selfApproval ?? false;
  }

  /** Whether an MCP elicitation may decide this approval (the rule first, then the runtime, else only `read` tools). */
  elicitationAllowed(approval: DecisionSubject): boolean {
    const { tool, rule } = this.#rule(approval);
    if (tool === undefined) return false;
    return rule?.elicitation ?? this.#o.elicitation ?? (tool.effects?.mode ?? 'write') === 'read';
  }

  /**
   * Throws FORBIDDEN or SELF_APPROVAL unless the decision's principal may
   * make it. Without a principal (a trusted in-process caller) every
   * decision is allowed. A requester may always deny (withdraw) its own
   * request: that grants nothing.
   */
  check(approval: DecisionSubject, decision: Decision, kind: 'approve' | 'deny'): void {
    const { principal } = decision;
    if (principal === undefined) return;
    const own = approval.requestedByPrincipal !== undefined && approval.requestedByPrincipal === principal.id;
    if (kind === 'deny' && own) return;
    if (decision.channel === 'elicitation' && !this.elicitationAllowed(approval)) {
      throw new CallError('FORBIDDEN', `Approval ${approval.id} of "${approval.tool}" cannot be decided through an MCP elicitation; an approver decides it over HTTP or the CLI.`, { approvalId: approval.id });
    }
    const subject = { tool: approval.tool, persona: approval.persona, requestedByPrincipal: own && this.selfApprovalAllowed(approval) ? undefined : approval.requestedByPrincipal };
    const verdict = mayDecide(principal, subject);
    if (verdict.ok) return;
    if (verdict.reason === 'SELF_APPROVAL') {
      throw new CallError('SELF_APPROVAL', `Principal "${principal.id}" asked for approval ${approval.id} itself; somebody else must decide it (four eyes).`, { approvalId: approval.id });
    }
    throw new CallError('FORBIDDEN', `Principal "${principal.id}" may not decide approvals of "${approval.tool}"${approval.persona !== null ? ` for persona "${approval.persona}"` : ''}.`, { approvalId: approval.id });
  }
}
