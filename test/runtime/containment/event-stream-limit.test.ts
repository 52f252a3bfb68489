/**
 * limitEventStream / EventBoundaries (src/runtime/containment/event-stream-limit.ts):
 * events end at an empty line whatever the line ends (LF, CRLF, CR, split
 * across chunks); only whole events are passed on; one event past the limit
 * cancels the source and ends the stream with the caller's last chunk or
 * an error.
 */
import { describe, expect, it } from 'vitest';
import { EventBoundaries, limitEventStream } from '../../../src/runtime/containment/event-stream-limit.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (chunks: Uint8Array[]) => new TextDecoder().decode(Buffer.concat(chunks));

/** A source stream of `chunks`, recording whether it was cancelled. */
function source(chunks: string[], endless = false): { stream: ReadableStream<Uint8Array>; cancelled: () => boolean } {
  let cancelled = false;
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(bytes(chunks[i++]!));
      else if (endless) controller.enqueue(bytes('x'.repeat(100)));
      else controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, cancelled: () => cancelled };
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<{ chunks: Uint8Array[]; error?: unknown }> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { chunks };
      chunks.push(value);
    }
  } catch (error) {
    return { chunks, error };
  }
}

describe('EventBoundaries', () => {
  it.each([
    ['LF', ['data: a\n\n'], [9]],
    ['CRLF', ['data: a\r\n\r\n'], [11]],
    ['CR', ['data: a\r\r'], [9]],
    ['no boundary yet', ['data: a\n'], [-1]],
    // the LF that completes a CRLF boundary goes on with the next event, which reads it as the rest of that line end
    ['a CRLF split across chunks', ['data: a\r\n\r', '\ndata: b'], [10, -1]],
    ['an LF pair split across chunks', ['data: a\n', '\ndata: b\n'], [-1, 1]],
    ['two events, the last boundary counts', ['data: a\n\ndata: b\n\ndata: c'], [18]],
    ['a line end then text is no boundary', ['data: a\r\ndata: b\r\n'], [-1]],
  ])('%s', (_what, chunks, expected) => {
    const b = new EventBoundaries();
    expect(chunks.map((c) => b.lastBoundary(bytes(c)))).toEqual(expected);
  });

  it.each([
    ['one event', ['data: a\n\n'], [9]],
    ['the larger of two in one chunk', ['data: a\n\ndata: bbb\n\ndata: c'], [11]],
    ['an event begun in the chunks before', ['data: ', 'aaaa', 'aaaa\n\n'], [0, 0, 16]],
    ['CRLF line ends', ['data: a\r\n\r\n'], [11]],
  ])('longestEnded: %s', (_what, chunks, expected) => {
    const b = new EventBoundaries();
    expect(chunks.map((c) => (b.lastBoundary(bytes(c)), b.longestEnded))).toEqual(expected);
  });
});

describe('limitEventStream', () => {
  const limit = (max: number, last?: string) => ({ maxEventBytes: max, onOverflow: () => (last === undefined ? undefined : bytes(last)), overflowError: () => new Error(`over ${max}`) });

  it('passes whole events on, holding an event back until its blank line', async () => {
    const { stream } = source(['data: a\n\ndata: ', 'b\n', '\n']);
    const { chunks, error } = await readAll(limitEventStream(stream, limit(100)));
    expect(error).toBeUndefined();
    expect(chunks.map((c) => new TextDecoder().decode(c))).toEqual(['data: a\n\n', 'data: ', 'b\n', '\n']);
  });

  it('an event past the limit cancels the source and fails the stream; the part cut off is never passed on', async () => {
    const src = source(['data: ok\n\n', 'data: ', 'x'.repeat(60), 'y'.repeat(60)], true);
    const { chunks, error } = await readAll(limitEventStream(src.stream, limit(100)));
    expect(text(chunks)).toBe('data: ok\n\n');
    expect(error).toEqual(new Error('over 100'));
    expect(src.cancelled()).toBe(true);
  });

  it('an endless event ends at the limit with the last chunk the caller gives', async () => {
    const src = source(['data: '], true);
    const { chunks, error } = await readAll(limitEventStream(src.stream, limit(1000, 'data: {"error":1}\n\n')));
    expect(error).toBeUndefined();
    expect(text(chunks)).toBe('data: {"error":1}\n\n');
    expect(src.cancelled()).toBe(true);
  });

  it.each([
    ['whole in one chunk', [`data: ok\n\n`, `data: ${'z'.repeat(200)}\n\n`]],
    ['ended in the chunk after its start', [`data: ok\n\n`, `data: ${'z'.repeat(90)}`, `${'z'.repeat(90)}\n\ndata: next\n\n`]],
  ])('an event past the limit that ends in its chunk (%s) ends the stream too', async (_what, chunks) => {
    const src = source(chunks, true);
    const { chunks: out, error } = await readAll(limitEventStream(src.stream, limit(100)));
    expect(text(out)).toBe('data: ok\n\n');
    expect(error).toEqual(new Error('over 100'));
    expect(src.cancelled()).toBe(true);
  });

  it('a chunk that ends one event and starts an oversize one: the whole event goes on, then the stream ends', async () => {
    const src = source([`data: a\n\ndata: ${'z'.repeat(200)}`]);
    const { chunks, error } = await readAll(limitEventStream(src.stream, limit(100)));
    expect(text(chunks)).toBe('data: a\n\n');
    expect(error).toEqual(new Error('over 100'));
  });
});
