/**
 * readBodyWithin: the MCP request body within a byte limit, whether the body
 * declares its length (read whole) or is chunked (read up to the limit).
 */
import { describe, expect, it } from 'vitest';
import { readBodyWithin } from '../../src/mcp/body.js';

const LIMIT = 64;
const text = (n: number) => 'x'.repeat(n);
/** A body with no declared length, in chunks of 16 bytes. */
const chunked = (n: number) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (let left = n; left > 0; left -= 16) c.enqueue(new TextEncoder().encode(text(Math.min(16, left))));
      c.close();
    },
  });
const request = (body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) => new Request('http://h/mcp', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

describe('readBodyWithin', () => {
  it.each([
    ['declared, within the limit', () => request(text(LIMIT), { 'content-length': String(LIMIT) }), text(LIMIT)],
    ['declared, over the limit', () => request(text(LIMIT + 1), { 'content-length': String(LIMIT + 1) }), undefined],
    ['declared short, body over the limit (a Request made in process)', () => request(text(LIMIT * 2), { 'content-length': '10' }), undefined],
    ['chunked, within the limit', () => request(chunked(LIMIT)), text(LIMIT)],
    ['chunked, over the limit', () => request(chunked(LIMIT * 4)), undefined],
    ['declared with a Transfer-Encoding too: read as chunked', () => request(chunked(LIMIT * 4), { 'content-length': '10', 'transfer-encoding': 'chunked' }), undefined],
    ['multi-byte text, declared in bytes', () => request('é'.repeat(LIMIT / 2), { 'content-length': String(LIMIT) }), 'é'.repeat(LIMIT / 2)],
  ])('%s', async (_label, make, expected) => {
    // off a socket (the parser holds the body to its length) and made in process: the same answers
    expect(await readBodyWithin(make(), LIMIT, true)).toBe(expected);
    expect(await readBodyWithin(make(), LIMIT)).toBe(expected);
  });

  it('a Request made in process with a lying Content-Length is counted, not read whole', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled += 64;
        c.enqueue(new TextEncoder().encode(text(64)));
        if (pulled >= LIMIT * 64) c.close();
      },
    });
    expect(await readBodyWithin(request(body, { 'content-length': '10' }), LIMIT)).toBeUndefined();
    expect(pulled).toBeLessThan(LIMIT * 4);
  });
});
