/**
 * Reading an MCP request body with a size limit that holds for chunked
 * bodies too (a chunked `initialize` of 1.1 GiB was accepted before, issue
 * 11): the same bounded reader the http provider uses for responses.
 * @module
 */
import { BodyTooLargeError, readTextLimited } from '../runtime/containment/body-limit.js';

/** The body as UTF-8 text, or undefined when it is larger than `maxBytes` (the rest is not read). */
export async function readBodyWithin(request: Request, maxBytes: number): Promise<string | undefined> {
  try {
    return await readTextLimited(request, maxBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) return undefined;
    throw error;
  }
}
