/**
 * The {@link Store} methods grouped by concern, the shape every back end's
 * per-concern module returns (sqlite-approvals.ts and postgres-approvals.ts,
 * and so on; keys are the `KeyStore` of types.ts). The SQL stays per dialect; the
 * store classes only open, wrap errors and forward.
 * @module
 */
import type { Store } from './types.js';

/** Approvals: create, read, list, compare-and-set update. */
export type ApprovalMethods = Pick<Store, 'createApproval' | 'getApproval' | 'listApprovals' | 'updateApproval'>;

/** The audit log: append, read in `seq` order. */
export type AuditMethods = Pick<Store, 'appendAudit' | 'listAudit'>;

/** Call history and calls in flight; both back ends have the optional group-commit methods. */
export type CallMethods = Required<Pick<Store, 'recordCall' | 'recordOutcomes' | 'recordStarts' | 'interruptCalls' | 'listCalls'>>;
