/**
 * readEventStreamAnswer (src/mcp/event-stream-answer.ts): the response to a
 * POSTed request that comes alone on its event stream is handed over as
 * JSON; anything else before it, and the stream goes on whole, replayed
 * from its first byte, without waiting for the server to end it.
 */
import { describe, expect, it } from 'vitest';
import { readEventStreamAnswer } from '../../src/mcp/event-stream-answer.js';

const enc = new TextEncoder();
const response = (id: number | string, extra = '') => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"hi${extra}"}]}}`;
const progress = '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}';

/** The chunks as a source, and whether it was read to its end. */
function source(chunks: string[]) {
  const state = { ended: false, returned: false };
  const body = (async function* () {
    try {
      for (const c of chunks) yield enc.encode(c);
      state.ended = true;
    } finally {
      state.returned = !state.ended;
    }
  })();
  return { body, state };
}

async function text(body: AsyncIterable<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let out = '';
  for await (const chunk of body) out += decoder.decode(chunk, { stream: true });
  return out;
}

describe('readEventStreamAnswer', () => {
  it.each([
    ['one event', [`event: message\ndata: ${response(7)}\n\n`]],
    ['a priming event with an id and no data first', ['id: 0\ndata:\n\n', `event: message\nid: 1\ndata: ${response(7)}\n\n`]],
    ['split across chunks, CRLF line ends', [`event: message\r\nda`, `ta: ${response(7).slice(0, 20)}`, `${response(7).slice(20)}\r\n\r\n`]],
    ['a comment line first', [`: keep-alive\n\ndata: ${response(7)}\n\n`]],
  ])('%s: the answer, parsed, and the rest of the stream read to its end', async (_, chunks) => {
    const { body, state } = source([...chunks, ': after the answer\n\n']);
    const found = await readEventStreamAnswer(body, 7, 1 << 20);
    expect(found).toEqual({ kind: 'answer', text: response(7), message: JSON.parse(response(7)) });
    await new Promise((r) => setTimeout(r, 10));
    expect(state.ended).toBe(true);
  });

  it('data over several lines is one text joined by line feeds', async () => {
    const { body } = source([`data: {"jsonrpc":"2.0",\ndata: "id":"a","error":{"code":-1,"message":"no"}}\n\n`]);
    const found = await readEventStreamAnswer(body, 'a', 1 << 20);
    expect(found).toMatchObject({ kind: 'answer', text: '{"jsonrpc":"2.0",\n"id":"a","error":{"code":-1,"message":"no"}}', message: { id: 'a', error: { code: -1 } } });
  });

  it.each([
    ['a notification first', [`data: ${progress}\n\n`, `data: ${response(7)}\n\n`]],
    ['a request of the server’s first', ['data: {"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{}}\n\n', `data: ${response(7)}\n\n`]],
    ['an event type other than message', [`event: endpoint\ndata: ${response(7)}\n\n`]],
    ['a retry field', [`retry: 1000\ndata: ${response(7)}\n\n`]],
    ['data that is not JSON', ['data: {not json\n\n', `data: ${response(7)}\n\n`]],
    ['the answer to another request', [`data: ${response(8)}\n\n`]],
    ['another event after the answer in the same chunk', [`data: ${response(7)}\n\ndata: ${progress}\n\n`]],
    ['the start of another event after the answer in the same chunk', [`data: ${response(7)}\n\ndata: {"jsonrpc"`, ':2.0}\n\n']],
    ['an end before any data', ['id: 0\ndata:\n\n']],
    ['an event past the limit before it ends', [`data: ${'x'.repeat(70)}`, `${'y'.repeat(10)}\n\n`, `data: ${response(7)}\n\n`]],
    // the answer itself past the limit: the stream, whose limit then fails the call (RESPONSE_TOO_LARGE)
    ['the answer past the limit, in one chunk', [`data: ${response(7, 'z'.repeat(64))}\n\n`]],
    ['the answer past the limit, its end in the chunk that ends it', [`data: ${response(7, 'z'.repeat(64)).slice(0, 40)}`, `${response(7, 'z'.repeat(64)).slice(40)}\n\n`]],
  ])('%s: the whole stream, from its first byte', async (_, chunks) => {
    const { body } = source(chunks);
    const found = await readEventStreamAnswer(body, 7, 64);
    expect(found.kind).toBe('stream');
    if (found.kind === 'stream') expect(await text(found.body)).toBe(chunks.join(''));
  });

  it('hands the stream on as soon as something other than the answer comes, while the server keeps it open', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const body = (async function* () {
      yield enc.encode('data: {"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{}}\n\n');
      await held; // the server waits for the client's answer to its request
      yield enc.encode(`data: ${response(7)}\n\n`);
    })();
    const found = await readEventStreamAnswer(body, 7, 1 << 20);
    expect(found.kind).toBe('stream');
    release();
    if (found.kind === 'stream') expect(await text(found.body)).toContain(response(7));
  });

  it.each([
    ['comments', ': keep-alive\n\n'],
    ['events with no data', 'id: 1\ndata:\n\n'],
  ])('a stream of %s before any answer is handed on once it passes the limit, not held whole', async (_, event) => {
    let pulled = 0;
    const body = (async function* () {
      // the server's keep-alives, 10,000 of them (forever, for a hostile one)
      for (let i = 0; i < 10_000; i++) {
        pulled++;
        yield enc.encode(event);
      }
    })();
    const found = await readEventStreamAnswer(body, 7, 64);
    expect(found.kind).toBe('stream');
    expect(pulled * event.length).toBeLessThanOrEqual(64 + event.length);
    if (found.kind === 'stream') await found.body[Symbol.asyncIterator]().return?.();
  });

  it('closing the handed-on stream closes the source', async () => {
    const { body, state } = source([`data: ${progress}\n\n`, 'data: more\n\n', 'data: still more\n\n']);
    const found = await readEventStreamAnswer(body, 7, 1 << 20);
    if (found.kind !== 'stream') throw new Error('expected the stream');
    const it = found.body[Symbol.asyncIterator]();
    await it.next();
    await it.return?.();
    expect(state.returned).toBe(true);
  });
});
