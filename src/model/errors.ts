/**
 * The one way to turn something thrown into text for a person. JavaScript
 * lets anything be thrown, so every catch that reports needs this; it lives
 * here, at the bottom, so that every layer uses the same rule.
 * @module
 */

/**
 * The message of an error, or the thrown value as a string.
 * @example errorMessage(new Error('boom')) // 'boom'
 * @example errorMessage('plain') // 'plain'
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
