/**
 * The bounded tail of a child's output stream (stderr), kept for error
 * messages and details: a chatty or hostile tool cannot grow it.
 * @module
 */

/**
 * Keeps the last `limit` bytes written to it.
 * @example const tail = new Tail(2048); child.stderr.on('data', (c) => tail.push(c)); tail.text()
 */
export class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - (this.chunks[0] as Buffer).length >= this.limit) {
      this.size -= (this.chunks.shift() as Buffer).length;
    }
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.limit)).toString('utf8');
  }
}
