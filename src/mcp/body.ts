/**
 * Reading a request body with a size limit that holds for chunked bodies
 * too: the stream is read chunk by chunk and cancelled as soon as it passes
 * the limit, instead of `request.text()` buffering whatever arrives (a
 * chunked `initialize` of 1.1 GiB was accepted before, issue 11).
 * @module
 */

/** The body as UTF-8 text, or undefined when it is larger than `maxBytes` (the rest is not read). */
export async function readBodyWithin(request: Request, maxBytes: number): Promise<string | undefined> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) return undefined;
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
