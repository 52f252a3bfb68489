/**
 * What a long-lived worker prints, passed on line by line with the secrets
 * its calls were handed (OAuth access tokens) redacted. The worker serves
 * many calls, and code may print a token after its call ended, so the
 * latest few secrets are kept, not only those of calls in flight.
 * @module
 */
import { createRedactor } from '../containment/redact.js';

/** Secrets kept for redaction: the most recent ones. */
const KEEP_SECRETS = 32;
/** A line longer than this is passed on without waiting for its end. */
const MAX_PENDING = 64 * 1024;

export class RedactedLines {
  readonly #write: (text: string) => void;
  #pending = '';
  #secrets: string[] = [];
  #redact: (text: string) => string = (text) => text;

  constructor(write: (text: string) => void) {
    this.#write = write;
  }

  /** Redact these from now on (the oldest are forgotten past KEEP_SECRETS). */
  remember(secrets: Iterable<string>): void {
    let changed = false;
    for (const s of secrets) {
      if (this.#secrets.includes(s)) continue;
      this.#secrets.push(s);
      changed = true;
    }
    if (!changed) return;
    this.#secrets = this.#secrets.slice(-KEEP_SECRETS);
    this.#redact = createRedactor({ secrets: this.#secrets }).redactText;
  }

  /** A chunk of output: whole lines are written redacted, the rest waits for its line's end. */
  push(chunk: string): void {
    this.#pending += chunk;
    const end = this.#pending.lastIndexOf('\n');
    if (end >= 0) {
      this.#write(this.#redact(this.#pending.slice(0, end + 1)));
      this.#pending = this.#pending.slice(end + 1);
    }
    if (this.#pending.length > MAX_PENDING) this.flush();
  }

  /** Write what waits for a line's end (the worker ended, or the line is too long). */
  flush(): void {
    if (this.#pending === '') return;
    this.#write(this.#redact(this.#pending));
    this.#pending = '';
  }
}
