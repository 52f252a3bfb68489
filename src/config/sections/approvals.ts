/**
 * The `approvals` section: rules that ask for approval beyond what the
 * manifests say, and how long an approval request stays valid. It goes to
 * the runtime.
 * @module
 */
import { Type } from '@sinclair/typebox';
import { joinPointer } from '../../model/diagnostics.js';
import { MODES, RISK_LEVELS, SIDE_EFFECTS } from '../../model/vocabulary.js';
import type { ApprovalRule } from '../../runtime/approval-rules.js';
import { ObjectReader } from '../../source/reader.js';
import type { ConfigReading } from '../reading.js';
import { AUDIT_GATES, type AuditGate } from '../../registry/audit-gate.js';

/** Fields of a rule that say what it allows, not which calls it matches. */
const NOT_CONDITIONS = new Set(['reason', 'selfApproval', 'elicitation']);

/** Longest approval validity: 30 days, in seconds. */
const MAX_TTL_SEC = 30 * 24 * 3600;

/** The `approvals` section. */
export interface ApprovalsConfig {
  /** Seconds an approval request stays valid. @default 3600 */
  ttlSec?: number;
  /** Whoever asked may also decide, for every rule (a single-user setup; the start banner says so). @default false (four eyes) */
  selfApproval?: boolean;
  rules?: ApprovalRule[];
}

/** `approvals`: how long a request stays valid, and policy rules. */
export const ApprovalsSchema = Type.Object(
  {
    ttlSec: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TTL_SEC, description: 'Seconds an approval request stays valid (default 3600).' })),
    selfApproval: Type.Optional(Type.Boolean({ description: 'Whoever asked may approve their own request (single-user setups; default false: four eyes).' })),
    rules: Type.Optional(
      Type.Array(
        Type.Object(
          {
            tools: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
            personas: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
            minSideEffects: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...SIDE_EFFECTS] })),
            minRisk: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...RISK_LEVELS] })),
            modes: Type.Optional(Type.Array(Type.Unsafe<string>({ type: 'string', enum: [...MODES] }))),
            auditStatus: Type.Optional(Type.Array(Type.Unsafe<AuditGate>({ type: 'string', enum: [...AUDIT_GATES] }), { description: 'Audit states (Pylot audit_status; "unset": none declared).' })),
            reason: Type.Optional(Type.String()),
            selfApproval: Type.Optional(Type.Boolean({ description: 'Calls this rule gates may be approved by whoever asked.' })),
            elicitation: Type.Optional(Type.Boolean({ description: 'An MCP client may approve through elicitation (needs selfApproval too: the client is the asker).' })),
          },
          { additionalProperties: false },
        ),
        { description: 'Calls matching a rule (every condition given) need approval even when the manifest does not ask for it.' },
      ),
    ),
  },
  { additionalProperties: false },
);

/** Read `approvals` (optional); a rule with no condition is an error (it would gate every call). @default {} */
export function readApprovals(reading: ConfigReading): ApprovalsConfig {
  const approvals: ApprovalsConfig = {};
  const approvalsReader = reading.top.object('approvals');
  if (!approvalsReader) return approvals;
  const ttl = approvalsReader.number('ttlSec', { integer: true, min: 1, max: MAX_TTL_SEC });
  if (ttl !== undefined) approvals.ttlSec = ttl;
  const self = approvalsReader.boolean('selfApproval');
  if (self !== undefined) approvals.selfApproval = self;
  const rules: ApprovalRule[] = [];
  approvalsReader.array('rules')?.forEach((item, i) => {
    const rule = ObjectReader.of(reading.context, item, joinPointer(approvalsReader.at('rules'), i), 'An approval rule');
    if (!rule) return;
    const r: ApprovalRule = {};
    const tools = rule.strings('tools');
    if (tools) r.tools = tools;
    const personas = rule.strings('personas');
    if (personas) r.personas = personas;
    const minSideEffects = rule.enumValue('minSideEffects', SIDE_EFFECTS);
    if (minSideEffects) r.minSideEffects = minSideEffects;
    const minRisk = rule.enumValue('minRisk', RISK_LEVELS);
    if (minRisk) r.minRisk = minRisk;
    const modes = rule.enumValues('modes', MODES);
    if (modes) r.modes = modes;
    const auditStatus = rule.enumValues('auditStatus', AUDIT_GATES);
    if (auditStatus) r.auditStatus = auditStatus;
    const reason = rule.string('reason');
    if (reason !== undefined) r.reason = reason;
    for (const key of ['selfApproval', 'elicitation'] as const) {
      const allowed = rule.boolean(key);
      if (allowed !== undefined) r[key] = allowed;
    }
    rule.rest({ where: 'an approval rule (known: tools, personas, minSideEffects, minRisk, modes, auditStatus, reason, selfApproval, elicitation)' });
    if (Object.keys(r).filter((k) => !NOT_CONDITIONS.has(k)).length === 0) {
      reading.report('INVALID_VALUE', 'An approval rule with no condition would gate every call.', rule.pointer, { hint: 'Give at least one of tools, personas, minSideEffects, minRisk, modes, auditStatus.' });
    } else rules.push(r);
  });
  if (rules.length > 0) approvals.rules = rules;
  approvalsReader.rest({ where: 'approvals (known: ttlSec, selfApproval, rules)' });
  return approvals;
}
