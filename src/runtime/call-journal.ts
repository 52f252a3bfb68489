/**
 * What the store learns of a call, and when: the durability rule.
 *
 * A call to a tool whose mode is not `read` (it may write, or its mode is
 * not declared) has effects a crash must not hide: its `call.started` line
 * is committed before its provider runs (no start, no run: the call is
 * refused with STORE_UNAVAILABLE), and it is answered only after its
 * outcome is committed. A crash in between leaves `started` without an
 * outcome, which the next start of the runtime marks `call.interrupted`
 * (`interruptCalls`). A read keeps the group commit's write-behind: it is
 * answered at once and its record follows within a turn of the event loop,
 * so a crash may lose the records of the last reads, never of a write.
 * While the store holds back so many records that the recorder is full (a
 * long outage), reads are refused with STORE_UNAVAILABLE as well: an
 * answered read whose record would then be dropped is a lost record.
 *
 * Every line is redacted before it is queued; arguments appear only as
 * `recordedArguments` (traceAttrs, never sensitive parameters), redacted and
 * then each value cut to MAX_RECORDED_VALUE characters, as span attributes are.
 * @module
 */
import type { Tool } from '../model/schema.js';
import type { CallOutcome, CallRecord, InterruptedCall, NewAuditRecord, Store } from '../store/types.js';
import { boundedRecorded, recordedArguments } from './containment/recorded-arguments.js';
import type { Redactor } from './containment/redact.js';
import { CallError, type CallErrorCode } from './errors.js';
import { OutcomeRecorder } from './recorder.js';

/** True when a call's records must be durable before it runs and before it is answered: every mode but `read`. */
export function mayWrite(tool: Tool): boolean {
  return (tool.effects?.mode ?? 'write') !== 'read';
}

/** Who made a call, for its records. */
export interface CallParty {
  persona: string | null;
  actor: string | null;
  job: string | null;
  approvalId?: string | undefined;
  /** The search answer the tool was chosen from, and what it was selected over (selections.ts). */
  selection?: Record<string, unknown>;
}

/** How a call ended, for its records. */
export interface CallEnd {
  ok: boolean;
  provider: string | undefined;
  attempts: Array<{ provider: string; outcome: string }>;
  skipped: string[];
  startedAt: number;
  durationMs: number;
  code?: CallErrorCode | undefined;
  message?: string | undefined;
}

/**
 * The call records of one runtime: starts and outcomes through the group
 * commit, with the durability rule above.
 * @example
 * await journal.started(tool, callId, args, party, redactor); // throws STORE_UNAVAILABLE for a write that cannot be recorded
 * await journal.finished(tool, callId, party, end, redactor, { wait: true });
 */
export class CallJournal {
  readonly #recorder: OutcomeRecorder;
  readonly #store: Store;
  readonly #clock: () => number;

  /** @param options.maxPending records waiting for the store at which new calls are refused (the recorder's `full`) */
  constructor(store: Store, warn: (message: string) => void, clock: () => number, options: { maxPending?: number } = {}) {
    this.#store = store;
    this.#recorder = new OutcomeRecorder(store, warn, options);
    this.#clock = clock;
  }

  /**
   * For a call that may write: commit its `call.started` line before it runs; STORE_UNAVAILABLE when the store refuses.
   * Reads: nothing, unless the recorder is full (then STORE_UNAVAILABLE: its record could not be kept).
   */
  async started(tool: Tool, callId: string, args: Record<string, unknown>, party: CallParty, redactor: Redactor): Promise<void> {
    if (this.#recorder.full) {
      throw new CallError('STORE_UNAVAILABLE', `The store is unavailable: ${this.#recorder.pending} call records are waiting for it, so "${tool.name}" did not run (no call runs whose record could not be kept).`, { callId });
    }
    if (!mayWrite(tool)) return;
    const line: NewAuditRecord = {
      at: new Date(this.#clock()).toISOString(),
      kind: 'call.started',
      tool: tool.name,
      callId,
      persona: party.persona,
      actor: party.actor,
      // a traceAttrs argument is the caller's and may be megabytes: redacted, then cut (a secret on the cut keeps its start otherwise)
      detail: {
        arguments: boundedRecorded(redactor.redact(recordedArguments(tool, args))),
        ...redactor.redact({ ...(party.approvalId ? { approvalId: party.approvalId } : {}), ...(party.selection ? { selection: party.selection } : {}) }),
      },
    };
    if (!(await this.#recorder.addStart(line))) {
      throw new CallError('STORE_UNAVAILABLE', `The store is unavailable: the start of "${tool.name}" could not be recorded, so it did not run (a call that may write runs only once it is on record).`, { callId });
    }
  }

  /**
   * Queue the outcome; resolves once it is committed when `wait` (or the
   * tool may write), at once otherwise. A store failure after the call ran
   * is a warning, never the call's answer: the effect happened.
   */
  async finished(tool: Tool, callId: string, party: CallParty, end: CallEnd, redactor: Redactor, options: { wait: boolean }): Promise<void> {
    const { code } = end;
    const outcome: CallOutcome = end.ok ? 'ok' : code === 'TIMEOUT' ? 'timeout' : code === 'NO_HEALTHY_PROVIDER' ? 'rejected' : 'error';
    const call: CallRecord = {
      callId,
      tool: tool.name,
      provider: end.provider ?? null,
      job: party.job,
      persona: party.persona,
      startedAt: new Date(end.startedAt).toISOString(),
      durationMs: end.durationMs,
      outcome,
      errorCode: code ?? null,
    };
    const detail = {
      provider: end.provider ?? null,
      attempts: end.attempts,
      skipped: end.skipped,
      durationMs: end.durationMs,
      ...(code ? { error: code, message: end.message } : {}),
      ...(party.approvalId ? { approvalId: party.approvalId } : {}),
      ...(party.selection ? { selection: party.selection } : {}),
    };
    const audit: NewAuditRecord = {
      at: new Date(this.#clock()).toISOString(),
      kind: end.ok ? 'call.ok' : 'call.error',
      tool: tool.name,
      callId,
      persona: party.persona,
      actor: party.actor,
      detail: redactor.redact(detail),
    };
    const written = this.#recorder.add({ call, audit });
    if (options.wait || mayWrite(tool)) await written;
  }

  /** Calls started before `before` whose outcome never came: marked `call.interrupted` (none on a store without in-flight notes). */
  interrupt(before: number): Promise<InterruptedCall[]> {
    if (!this.#store.interruptCalls) return Promise.resolve([]);
    return this.#store.interruptCalls({ at: new Date(this.#clock()).toISOString(), before: new Date(before).toISOString() });
  }

  /** Wait until every queued record is in the store. */
  flush(): Promise<void> {
    return this.#recorder.flush();
  }
}
