/**
 * Lets the test worker read its messages before every test.
 *
 * Vitest's worker reports progress to the main process over RPC and gives up on
 * an answer after 60 s ("Timeout calling onTaskUpdate"), which fails the whole
 * run although every test passed. The answer comes back on the worker's event
 * loop, and a file whose tests only await work that finishes synchronously (the
 * in-process CLI reading files with readFileSync, say) never reaches it: a
 * chain of promises is all microtasks. Measured on a 2-core machine: one file
 * kept its worker from its messages for 36 s, and in CI a slower run crossed
 * 60 s. One macrotask before each test (runner-setup.ts) and before each
 * in-process CLI run (test/cli/helpers.ts) lets the answer in.
 *
 * `setImmediate` is taken when this file loads, before any test can fake it.
 */

const realSetImmediate = globalThis.setImmediate;

/** One turn of the event loop: pending I/O (the runner's RPC answers included) is read before this resolves. */
export const yieldToRunner = (): Promise<void> => new Promise((resolve) => realSetImmediate(resolve));
