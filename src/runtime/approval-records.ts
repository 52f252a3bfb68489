/**
 * Approval records as the approval book handles them: the id that carries
 * its call's id, the view callers get, and the rule for store writes a
 * gated call depends on (fail closed).
 * @module
 */
import { randomUUID } from 'node:crypto';
import { errorMessage } from '../model/errors.js';
import type { ApprovalRecord } from '../store/types.js';
import { CallError } from './errors.js';

/** An approval as callers see it: the stored record without the internal tool key. */
export type ApprovalView = Omit<ApprovalRecord, 'toolKey'>;

/**
 * An approval's id carries the id of the call it gates (`apr_` + the call
 * id's hex), so the request, the decision and the approved run share one
 * call id in the audit log without another column.
 */
export const approvalIdFor = (callId: string) => `apr_${callId.replace(/-/g, '')}`;
/** The call id an approval's id carries (a fresh one for an id of another shape). */
export const callIdOf = (approvalId: string): string => {
  const hex = approvalId.slice(4);
  return /^[0-9a-f]{32}$/.test(hex) ? `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` : randomUUID();
};

/** The record as callers see it. */
export const view = (r: ApprovalRecord): ApprovalView => {
  const { toolKey: _key, ...rest } = r;
  return rest;
};

/** A store write an approval-gated call depends on: failure fails the call closed. */
export async function must<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw new CallError('STORE_UNAVAILABLE', `The store is unavailable (${errorMessage(error)}); approval-gated calls are refused until it is back.`, {}, { cause: error });
  }
}
