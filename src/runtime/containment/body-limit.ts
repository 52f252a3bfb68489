/**
 * Read a body (a response's, or a request's) up to a size limit. The stream is read chunk by
 * chunk and cancelled as soon as the limit is passed, so memory never holds
 * more than the limit plus one chunk; a `Content-Length` above the limit
 * fails before anything is read.
 * @module
 */

/** Default response body limit: 10 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** A body longer than the limit. Only part of it was read. */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  readonly code = 'BODY_TOO_LARGE';
  constructor(
    readonly limit: number,
    /** Bytes seen when reading stopped (or the declared Content-Length). */
    readonly received: number,
  ) {
    super(`response body exceeds ${limit} bytes`);
  }
}

/**
 * The body's bytes, at most `maxBytes` of them.
 * @param maxBytes @default DEFAULT_MAX_BODY_BYTES
 * @throws BodyTooLargeError past the limit (the body stream is cancelled)
 */
export async function readBodyLimited(response: Pick<Response, 'headers' | 'body'>, maxBytes: number = DEFAULT_MAX_BODY_BYTES): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new BodyTooLargeError(maxBytes, declared);
  }
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      chunks.length = 0;
      await reader.cancel().catch(() => {});
      throw new BodyTooLargeError(maxBytes, size);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** {@link readBodyLimited}, decoded as UTF-8 (as `Response.text()` does). */
export async function readTextLimited(response: Pick<Response, 'headers' | 'body'>, maxBytes: number = DEFAULT_MAX_BODY_BYTES): Promise<string> {
  return new TextDecoder().decode(await readBodyLimited(response, maxBytes));
}
