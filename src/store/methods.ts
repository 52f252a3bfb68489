/**
 * The {@link Store} methods grouped by concern, the shape every back end's
 * per-concern module returns (sqlite-approvals.ts and postgres-approvals.ts,
 * and so on; keys are the `KeyStore` of types.ts). The SQL stays per dialect; the
 * store classes only open, wrap errors and forward.
 * @module
 */
import type {
  ApprovalQuery,
  ApprovalRecord,
  ApprovalStatus,
  ApprovalUpdate,
  AuditQuery,
  AuditRecord,
  CallOutcomeRecord,
  CallQuery,
  CallRecord,
  InterruptedCall,
  KeyQuery,
  KeyRecord,
  KeyStore,
  NewAuditRecord,
  Store,
} from './types.js';
import type { NewOAuthToken, OAuthTokenRecord, OAuthTokenStore } from './oauth-tokens.js';
import type { LearnedToolRecord, LearnedToolStore } from './learned-tools.js';

/** Approvals: create, read, list, compare-and-set update. */
export type ApprovalMethods = Pick<Store, 'createApproval' | 'getApproval' | 'listApprovals' | 'updateApproval'>;

/** The audit log: append, read in `seq` order. */
export type AuditMethods = Pick<Store, 'appendAudit' | 'listAudit'>;

/** Call history and calls in flight; both back ends have the optional group-commit methods. */
export type CallMethods = Required<Pick<Store, 'recordCall' | 'recordOutcomes' | 'recordStarts' | 'interruptCalls' | 'listCalls'>>;

/** Every method group of a back end. */
export interface MethodGroups {
  approvals: ApprovalMethods;
  audit: AuditMethods;
  calls: CallMethods;
  keys: KeyStore;
  oauth: OAuthTokenStore;
  learned: LearnedToolStore;
}

/**
 * The forwarding both back ends share: each store method goes to its group.
 * A back end extends this, hands its groups to the constructor, and keeps
 * only opening, error wrapping and closing.
 */
export abstract class GroupedStore implements KeyStore, OAuthTokenStore, LearnedToolStore {
  #groups: MethodGroups | undefined;

  /** Called once at the end of the back end's constructor, when what the groups use exists. */
  protected useGroups(groups: MethodGroups): void {
    this.#groups = groups;
  }

  get #g(): MethodGroups {
    if (!this.#groups) throw new Error('a store back end must call useGroups() in its constructor');
    return this.#groups;
  }

  createApproval(record: ApprovalRecord): Promise<void> {
    return this.#g.approvals.createApproval(record);
  }

  getApproval(id: string): Promise<ApprovalRecord | undefined> {
    return this.#g.approvals.getApproval(id);
  }

  listApprovals(query?: ApprovalQuery): Promise<ApprovalRecord[]> {
    return this.#g.approvals.listApprovals(query);
  }

  updateApproval(id: string, from: ApprovalStatus, update: ApprovalUpdate): Promise<ApprovalRecord | undefined> {
    return this.#g.approvals.updateApproval(id, from, update);
  }

  appendAudit(record: NewAuditRecord): Promise<AuditRecord> {
    return this.#g.audit.appendAudit(record);
  }

  listAudit(query?: AuditQuery): Promise<AuditRecord[]> {
    return this.#g.audit.listAudit(query);
  }

  recordCall(record: CallRecord): Promise<void> {
    return this.#g.calls.recordCall(record);
  }

  recordOutcomes(outcomes: readonly CallOutcomeRecord[]): Promise<void> {
    return this.#g.calls.recordOutcomes(outcomes);
  }

  recordStarts(records: readonly NewAuditRecord[]): Promise<void> {
    return this.#g.calls.recordStarts(records);
  }

  interruptCalls(options: { at: string; before: string }): Promise<InterruptedCall[]> {
    return this.#g.calls.interruptCalls(options);
  }

  listCalls(query?: CallQuery): Promise<CallRecord[]> {
    return this.#g.calls.listCalls(query);
  }

  createKey(record: KeyRecord): Promise<void> {
    return this.#g.keys.createKey(record);
  }

  getKey(id: string): Promise<KeyRecord | undefined> {
    return this.#g.keys.getKey(id);
  }

  listKeys(query?: KeyQuery): Promise<KeyRecord[]> {
    return this.#g.keys.listKeys(query);
  }

  revokeKey(id: string, at: string): Promise<KeyRecord | undefined> {
    return this.#g.keys.revokeKey(id, at);
  }

  touchKey(id: string, at: string): Promise<void> {
    return this.#g.keys.touchKey(id, at);
  }

  putOAuthToken(record: NewOAuthToken): Promise<OAuthTokenRecord> {
    return this.#g.oauth.putOAuthToken(record);
  }

  replaceOAuthToken(record: NewOAuthToken, fromRevision: number): Promise<OAuthTokenRecord | undefined> {
    return this.#g.oauth.replaceOAuthToken(record, fromRevision);
  }

  getOAuthToken(tool: string, service: string): Promise<OAuthTokenRecord | undefined> {
    return this.#g.oauth.getOAuthToken(tool, service);
  }

  listOAuthTokens(query?: { tool?: string }): Promise<OAuthTokenRecord[]> {
    return this.#g.oauth.listOAuthTokens(query);
  }

  deleteOAuthToken(tool: string, service?: string): Promise<number> {
    return this.#g.oauth.deleteOAuthToken(tool, service);
  }

  putLearnedTool(record: LearnedToolRecord): Promise<LearnedToolRecord> {
    return this.#g.learned.putLearnedTool(record);
  }

  listLearnedTools(): Promise<LearnedToolRecord[]> {
    return this.#g.learned.listLearnedTools();
  }

  deleteLearnedTool(id: string): Promise<boolean> {
    return this.#g.learned.deleteLearnedTool(id);
  }
}
