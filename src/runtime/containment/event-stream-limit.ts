/**
 * A cap on the size of one message of a `text/event-stream` body. An event
 * stream may rightly last for hours, so its total is not limited; what is
 * limited is one event: the bytes of the event not yet ended by its blank
 * line, and of each event that ends in a chunk (a chunk may hold a whole
 * event of any size). Past the limit the source is cancelled (its
 * connection is dropped) and the stream ends, after an optional last chunk
 * the caller makes (e.g. an error event for the request the stream answers).
 *
 * Only whole events are passed on: the bytes after the last blank line of a
 * chunk are held back until the event ends, so a reader never sees the part
 * of an event that was cut off. A chunk that ends on an event boundary (the
 * usual case: one event per write) is passed on as it is, uncopied.
 * @module
 */

const LF = 10;
const CR = 13;

/** Where the events end in a byte stream, chunk by chunk (a line ends at CRLF, LF or CR; an empty line ends an event). */
export class EventBoundaries {
  /** The last byte seen ended a line (or nothing was seen yet). */
  #atLineStart = true;
  /** The last byte seen was a CR, so an LF next is the rest of the same line end. */
  #afterCR = false;
  /** Bytes of the event not yet ended, from the chunks before. */
  #open = 0;
  #longest = 0;

  /**
   * The size in bytes of the largest event that ended in the last chunk
   * given to {@link lastBoundary} (its bytes in earlier chunks included), 0
   * when none did. A whole event may come in one chunk, so the bytes held
   * after the last boundary say nothing of the events before it.
   */
  get longestEnded(): number {
    return this.#longest;
  }

  /**
   * The offset just past the last event boundary in `chunk`, or -1 when no
   * event ends in it. State carries over to the next chunk.
   */
  lastBoundary(chunk: Uint8Array): number {
    let last = -1;
    let from = 0;
    /** Where the event in progress began in this chunk, and its bytes before the chunk. */
    let start = 0;
    let carried = this.#open;
    /** The size of the event that ended last in this chunk. */
    let ended = 0;
    this.#longest = 0;
    for (;;) {
      const lf = chunk.indexOf(LF, from);
      const cr = chunk.indexOf(CR, from);
      const at = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (at === -1) {
        if (from < chunk.length) {
          this.#atLineStart = false;
          this.#afterCR = false;
        }
        this.#open = carried + chunk.length - start;
        return last;
      }
      if (at > from) {
        this.#atLineStart = false;
        this.#afterCR = false;
      }
      const byte = chunk[at];
      if (byte === LF && this.#afterCR) {
        // the LF of a CRLF: the line (or the event) ended at the CR already
        this.#afterCR = false;
        if (last === at) {
          // counted with the event it ends
          last = at + 1;
          start = last;
          this.#longest = Math.max(this.#longest, ended + 1);
          ended += 1;
        }
      } else {
        if (this.#atLineStart) {
          last = at + 1;
          ended = carried + last - start;
          this.#longest = Math.max(this.#longest, ended);
          start = last;
          carried = 0;
        }
        this.#atLineStart = true;
        this.#afterCR = byte === CR;
      }
      from = at + 1;
    }
  }
}

/** Options of {@link limitEventStream}. */
export interface EventStreamLimit {
  /** Most bytes one event may hold (its field lines and their line ends). */
  maxEventBytes: number;
  /**
   * Called once when an event passes the limit: what to send in its place
   * before the stream ends (undefined: end with an error, `overflowError()`).
   */
  onOverflow: () => Uint8Array | undefined;
  /** The error the stream fails with when `onOverflow` gives nothing. */
  overflowError: () => Error;
}

/**
 * `body` (a Node stream, a Web stream, any async iterable of bytes), passed on event by event, failing (or ending, see
 * {@link EventStreamLimit.onOverflow}) when one event passes the limit.
 * Cancelling the result cancels `body`.
 * @example new Response(limitEventStream(nodeReadable, { maxEventBytes: 1 << 20, onOverflow: () => undefined, overflowError: () => new Error('too large') }))
 */
export function limitEventStream(body: AsyncIterable<Uint8Array>, limit: EventStreamLimit): ReadableStream<Uint8Array> {
  // read through the body's own iterator (a Node stream's, or a Web stream's): one stream layer, not two; return() cancels it
  const source = body[Symbol.asyncIterator]();
  const reader = {
    read: () => source.next(),
    cancel: async (reason?: unknown) => {
      await source.return?.(reason);
    },
  };
  const boundaries = new EventBoundaries();
  let held: Uint8Array[] = [];
  let pending = 0;
  /** Drop what is held, cancel the source, and end with the caller's last chunk or fail. */
  const overflow = async (controller: ReadableStreamDefaultController<Uint8Array>) => {
    held = [];
    await reader.cancel().catch(() => undefined);
    const last = limit.onOverflow();
    if (last === undefined) controller.error(limit.overflowError());
    else {
      controller.enqueue(last);
      controller.close();
    }
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // read until something can be passed on, the stream ends or an event is too large
      for (;;) {
        const { done, value } = await reader.read();
        if (done === true) {
          // a last event without its blank line: a reader drops it, as the SSE rules say; the bytes go on anyway
          for (const piece of held) controller.enqueue(piece);
          held = [];
          controller.close();
          return;
        }
        const end = boundaries.lastBoundary(value);
        if (end === -1) {
          pending += value.byteLength;
          if (pending > limit.maxEventBytes) return overflow(controller);
          held.push(value);
          continue;
        }
        // an event that ended in this chunk may be past the limit too (one chunk can hold a whole event)
        if (boundaries.longestEnded > limit.maxEventBytes) return overflow(controller);
        for (const piece of held) controller.enqueue(piece);
        held = [];
        pending = value.byteLength - end;
        if (end === value.byteLength) controller.enqueue(value);
        else {
          controller.enqueue(value.subarray(0, end));
          held.push(value.subarray(end));
        }
        // the rest of this one chunk may already be over the limit
        if (pending > limit.maxEventBytes) return overflow(controller);
        return;
      }
    },
    async cancel(reason) {
      held = [];
      await reader.cancel(reason);
    },
  });
}
