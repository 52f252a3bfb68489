/**
 * The answer to one JSON-RPC request POSTed over Streamable HTTP, read off
 * the event stream the server opened for it when that stream holds nothing
 * else before it.
 *
 * A server may answer a POST with an event stream (the everything server
 * always does): notifications and requests of its own about the call, then
 * the response, then the end of the stream. The SDK's client transport
 * reads such a stream through a text decoder stream and an event parser
 * stream, made per answer, and every chunk crosses them as promises; on the
 * gateway's upstream hop that was about 0.3 ms of CPU per call (`npm run
 * bench mcp`, `toolcap serve`). Most answers are one event: the response.
 * Here the stream is read up to its first event with data: when that is the
 * response to the request (its id, a `result` or an `error`), the transport
 * gets it as a JSON answer (`application/json`, which it parses the same
 * way) and the rest of the stream is read to its end and dropped. Anything
 * else first (a progress or log notification, a request of the server's
 * such as an elicitation, an event type other than `message`, a `retry`
 * field, data that is not JSON, a byte-order mark) and the stream is passed
 * on whole, replayed from its first byte, as before: nothing is held back
 * from the SDK while the server waits for it.
 *
 * What the JSON answer drops: the SSE event id of the response and of
 * events with no data before it (the transport keeps the last id only to
 * resume a stream that ended before its response, and toolcap passes no
 * resumption callback), and events after the response (the server is to
 * end the stream once it has answered; they could concern nothing still
 * open). A response whose JSON the SDK's schema refuses fails the call at
 * once (the transport's JSON path throws) instead of being reported and
 * skipped while the call waits for its timeout.
 * @module
 */
import { EventBoundaries } from '../runtime/containment/event-stream-limit.js';

/** What {@link readEventStreamAnswer} found. */
export type EventStreamAnswer =
  /** The response, its JSON text and its parsed value (`message`); the rest of the stream is being read and dropped. */
  | { kind: 'answer'; text: string; message: unknown }
  /** Not one answer alone: the whole stream, from its first byte. */
  | { kind: 'stream'; body: AsyncIterable<Uint8Array> };

/** One event's fields, as an event stream parser reads them; undefined when one the answer cannot carry is there. */
interface EventFields {
  data: string | undefined;
}

const LINE_END = /\r\n|\r|\n/;

/** The fields of one event's text (its lines without the blank line), or undefined when it holds a type other than `message` or a `retry`. */
function fieldsOf(text: string): EventFields | undefined {
  let data: string | undefined;
  for (const line of text.split(LINE_END)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'data') data = data === undefined ? value : `${data}\n${value}`;
    else if (name === 'event' && value !== 'message') return undefined;
    else if (name === 'retry') return undefined;
    // id and unknown fields: nothing the answer needs
  }
  return { data };
}

/** Whether `message` is the JSON-RPC response to the request `id`. */
function answers(message: unknown, id: string | number): boolean {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const m = message as Record<string, unknown>;
  return m.jsonrpc === '2.0' && m.id === id && ('result' in m || 'error' in m) && !('method' in m);
}

/** Read what is left of `rest` and drop it, at most `maxBytes` of it (past that the stream is closed). */
async function drain(rest: AsyncIterator<Uint8Array>, maxBytes: number): Promise<void> {
  let size = 0;
  try {
    for (let r = await rest.next(); r.done !== true; r = await rest.next()) {
      size += r.value.byteLength;
      if (size > maxBytes) {
        await rest.return?.();
        return;
      }
    }
  } catch {
    // the answer is given; a stream that fails after it concerns nothing left
  }
}

/** `read` first, then the rest of `source`; returning early closes `source`. */
async function* replay(read: readonly Uint8Array[], source: AsyncIterator<Uint8Array>): AsyncGenerator<Uint8Array> {
  try {
    yield* read;
    for (let r = await source.next(); r.done !== true; r = await source.next()) yield r.value;
  } finally {
    await source.return?.();
  }
}

/**
 * The response to request `id` if it is the first event with data of
 * `body`, else the whole stream. Reads no further than that first event
 * (and never holds more than `maxEventBytes` in all: past it the stream is
 * handed on, whose limit then applies to each event).
 * @example
 * const found = await readEventStreamAnswer(undiciBody, 7, 1 << 20);
 * if (found.kind === 'answer') return jsonResponse(found.text, found.message);
 */
export async function readEventStreamAnswer(body: AsyncIterable<Uint8Array>, id: string | number, maxEventBytes: number): Promise<EventStreamAnswer> {
  const source = body[Symbol.asyncIterator]();
  const read: Uint8Array[] = [];
  const decoder = new TextDecoder();
  const boundaries = new EventBoundaries();
  /** Decoded text of the complete events not yet looked at (after the last one looked at). */
  let pendingText = '';
  /** Bytes read since the last event boundary. */
  let pendingBytes = 0;
  /** Bytes read in all (held in `read` for a replay). */
  let readBytes = 0;
  const whole = (): EventStreamAnswer => ({ kind: 'stream', body: replay(read, source) });
  for (;;) {
    const next = await source.next();
    if (next.done === true) return whole();
    const chunk = next.value;
    // a byte-order mark first: left to the SDK's decoder, which drops it
    if (read.length === 0 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
      read.push(chunk);
      return whole();
    }
    read.push(chunk);
    // events with no data (comments, ids) cost nothing to the SDK's parser but are held here for a replay: no more than one event's worth
    readBytes += chunk.byteLength;
    if (readBytes > maxEventBytes) return whole();
    const end = boundaries.lastBoundary(chunk);
    if (end === -1) {
      pendingBytes += chunk.byteLength;
      if (pendingBytes > maxEventBytes) return whole();
      pendingText += decoder.decode(chunk, { stream: true });
      continue;
    }
    // an event ended in this chunk past the limit (the answer too): the stream, whose limit then fails the call
    if (boundaries.longestEnded > maxEventBytes) return whole();
    pendingBytes = chunk.byteLength - end;
    pendingText += decoder.decode(chunk.subarray(0, end), { stream: true });
    // complete events end with a blank line: the text up to the last one splits into events
    const events = pendingText.split(/(?:\r\n|\r|\n){2}/);
    pendingText = decoder.decode(chunk.subarray(end), { stream: true });
    for (const [i, text] of events.entries()) {
      if (i === events.length - 1 && text === '') break;
      const fields = fieldsOf(text);
      if (fields === undefined) return whole();
      if (fields.data === undefined || fields.data === '') continue;
      let message: unknown;
      try {
        message = JSON.parse(fields.data);
      } catch {
        return whole();
      }
      // the response must be all there is with data so far
      const after = events.slice(i + 1).some((e) => fieldsOf(e)?.data);
      if (!answers(message, id) || after || pendingText.length > 0) return whole();
      void drain(source, maxEventBytes);
      return { kind: 'answer', text: fields.data, message };
    }
  }
}
