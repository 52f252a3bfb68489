/**
 * The NATS JetStream dispatcher. Every workflow has one subject,
 * `<prefix>.<workflowType>.<workflowId>` (default prefix
 * `toolcap.workflows`), in one stream (default `TOOLCAP_WORKFLOWS`, created
 * with subjects `<prefix>.>` when missing). The first message on a subject
 * is a `start` message (header `Toolcap-Kind: start`, body: workflow name and
 * bootstrap), published with JetStream's expected-last-subject-sequence 0,
 * so only one start is ever stored however many events race; every event
 * is then a `signal` message (header `Toolcap-Signal: <signalName>`, body:
 * the event) with `Nats-Msg-Id: <workflowId>:<idempotencyKey>`, so
 * JetStream drops a replay within the stream's duplicate window.
 * `signalOnly` looks for the subject's last message first: none means the
 * workflow is not running. The dispatcher's `dedupeWindowSec` is the
 * stream's own duplicate window, read from the server: a stream that
 * existed before keeps its window, and the webhook route fits its
 * timestamp tolerance to it.
 * @module
 */
import { connect, headers, type JetStreamClient, type JetStreamManager, type NatsConnection, type NatsError } from 'nats';
import { DispatchUnavailableError, WorkflowNotRunningError, type DispatchRequest, type DispatchResult, type Dispatcher } from './dispatcher.js';

/** Options of {@link jetStreamDispatcher}. */
export interface JetStreamOptions {
  /** NATS servers. @default '127.0.0.1:4222' */
  servers?: string | string[];
  /** The stream. @default 'TOOLCAP_WORKFLOWS' */
  stream?: string;
  /** Subject prefix. @default 'toolcap.workflows' */
  subjectPrefix?: string;
  /** The stream's duplicate window (a new stream's only; an existing stream keeps its own), seconds. @default 86400 */
  duplicateWindowSec?: number;
  /** How long to wait for the server at connect, ms. @default 5000 */
  connectTimeoutMs?: number;
}

/** JetStream's API error codes used here. */
const WRONG_LAST_SEQUENCE = 10071;
const NO_MESSAGE = 10037;
const STREAM_NOT_FOUND = 10059;

const apiCode = (err: unknown): number | undefined => (err as NatsError | undefined)?.api_error?.err_code;

/** The subject of one workflow. */
export const workflowSubject = (prefix: string, workflowType: string, workflowId: string): string => `${prefix}.${workflowType}.${workflowId}`;

/**
 * Connect, make sure the stream exists, and dispatch to it.
 * @example const d = await jetStreamDispatcher({ servers: '127.0.0.1:4222' });
 */
export async function jetStreamDispatcher(options: JetStreamOptions = {}): Promise<Dispatcher & { readonly stream: string; readonly subjectPrefix: string; readonly dedupeWindowSec: number }> {
  const stream = options.stream ?? 'TOOLCAP_WORKFLOWS';
  const prefix = options.subjectPrefix ?? 'toolcap.workflows';
  let nc: NatsConnection;
  try {
    nc = await connect({ servers: options.servers ?? '127.0.0.1:4222', timeout: options.connectTimeoutMs ?? 5000 });
  } catch (err) {
    throw new DispatchUnavailableError(`NATS at ${String(options.servers ?? '127.0.0.1:4222')} is not reachable: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const jsm = await nc.jetstreamManager();
  const dedupeWindowSec = await ensureStream(jsm, stream, prefix, options.duplicateWindowSec ?? 86400);
  const js = nc.jetstream();
  return {
    kind: 'jetstream',
    stream,
    subjectPrefix: prefix,
    dedupeWindowSec,
    async dispatch(r: DispatchRequest): Promise<DispatchResult> {
      const subject = workflowSubject(prefix, r.workflowType, r.workflowId);
      try {
        let started = false;
        if (r.mode === 'signalWithStart') started = await publishStart(js, subject, r);
        else if (!(await hasMessages(jsm, stream, subject))) throw new WorkflowNotRunningError(r.workflowId);
        const h = headers();
        h.set('Toolcap-Kind', 'signal');
        h.set('Toolcap-Signal', r.signalName);
        const ack = await js.publish(subject, JSON.stringify(r.payload ?? null), { msgID: `${r.workflowId}:${r.idempotencyKey}`, headers: h });
        return { workflowId: r.workflowId, started, duplicate: ack.duplicate, seq: ack.seq };
      } catch (err) {
        if (err instanceof WorkflowNotRunningError) throw err;
        throw new DispatchUnavailableError(`Publishing to ${subject} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    },
    close: () => nc.drain(),
  };
}

/** Make sure the stream exists; its duplicate window in seconds (an existing stream's own). */
async function ensureStream(jsm: JetStreamManager, name: string, prefix: string, windowSec: number): Promise<number> {
  let windowNs: number | undefined;
  try {
    windowNs = (await jsm.streams.info(name)).config.duplicate_window;
  } catch (err) {
    if (apiCode(err) !== STREAM_NOT_FOUND) throw err;
    windowNs = (await jsm.streams.add({ name, subjects: [`${prefix}.>`], duplicate_window: windowSec * 1e9 })).config.duplicate_window;
  }
  // the server fills in its default (2 minutes) when a stream was made without one
  return typeof windowNs === 'number' && windowNs > 0 ? windowNs / 1e9 : 120;
}

/** Publish the start message unless the subject has one; true when this call stored it. */
async function publishStart(js: JetStreamClient, subject: string, r: DispatchRequest): Promise<boolean> {
  const h = headers();
  h.set('Toolcap-Kind', 'start');
  try {
    const ack = await js.publish(subject, JSON.stringify({ workflowName: r.workflowName, bootstrap: r.bootstrap }), {
      msgID: `${r.workflowId}:start`,
      headers: h,
      expect: { lastSubjectSequence: 0 },
    });
    return !ack.duplicate;
  } catch (err) {
    if (apiCode(err) === WRONG_LAST_SEQUENCE) return false;
    throw err;
  }
}

async function hasMessages(jsm: JetStreamManager, stream: string, subject: string): Promise<boolean> {
  try {
    await jsm.streams.getMessage(stream, { last_by_subj: subject });
    return true;
  } catch (err) {
    if (apiCode(err) === NO_MESSAGE) return false;
    throw err;
  }
}
