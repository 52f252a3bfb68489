import { describe, expect, it } from 'vitest';
import { BodyTooLargeError, readBodyLimited, readTextLimited } from '../../../src/runtime/containment/body-limit.js';

/** A response streaming `chunks` chunks of `size` bytes, counting how many were pulled. */
function streaming(chunks: number, size: number, headers: Record<string, string> = {}): { response: Response; pulled: () => number; cancelled: () => boolean } {
  let pulled = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === chunks) return controller.close();
      pulled++;
      controller.enqueue(new Uint8Array(size).fill(97));
    },
    cancel() {
      cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { response: new Response(body, { headers }), pulled: () => pulled, cancelled: () => cancelled };
}

describe('readBodyLimited', () => {
  it.each([
    [0, 100, 100, 0],
    [1, 100, 100, 100],
    [10, 100, 1000, 1000],
    [4, 1000, 5000, 4000],
  ])('%i chunks of %i bytes under a limit of %i: %i bytes', async (chunks, size, limit, total) => {
    const { response } = streaming(chunks, size);
    expect((await readBodyLimited(response, limit)).byteLength).toBe(total);
  });

  it('stops at the first chunk past the limit and cancels the stream (an endless body)', async () => {
    const s = streaming(Number.POSITIVE_INFINITY, 64 * 1024);
    const err = await readBodyLimited(s.response, 1024 * 1024).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BodyTooLargeError);
    expect(err).toMatchObject({ code: 'BODY_TOO_LARGE', limit: 1024 * 1024, received: 1024 * 1024 + 64 * 1024 });
    expect(s.pulled()).toBe(17);
    expect(s.cancelled()).toBe(true);
  });

  it('fails before reading when Content-Length is over the limit', async () => {
    const s = streaming(1, 10, { 'content-length': '5000' });
    await expect(readBodyLimited(s.response, 100)).rejects.toMatchObject({ received: 5000, limit: 100 });
    expect(s.pulled()).toBe(0);
  });

  it('defaults to 10 MiB, and decodes text', async () => {
    await expect(readTextLimited(new Response('héllo'))).resolves.toBe('héllo');
    const big = streaming(11, 1024 * 1024);
    await expect(readBodyLimited(big.response)).rejects.toMatchObject({ limit: 10 * 1024 * 1024 });
    expect((await readBodyLimited(new Response(null))).byteLength).toBe(0);
  });
});
