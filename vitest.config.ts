import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    typecheck: { enabled: false },
    testTimeout: 20_000,
    // one turn of the event loop before each test, so the worker reads the runner's RPC answers (test/helpers/yield-to-runner.ts says why)
    setupFiles: ['test/helpers/runner-setup.ts'],
    // Each test file in a fresh worker (vitest's default, isolate: true), although importing src/ afresh for each of
    // the 278 files is about half of the run (297 s of 584 s on a 2-core machine). Sharing workers (isolate: false)
    // ran in 364-498 s, but work a file leaves running (timers, reload loops) then runs on in the next file: under
    // the fake clock of test/mcp/sessions.test.ts it hung that test (stop 28, 2 of 4 runs).
    isolate: true,
    // One worker per core (TOOLCAP_TEST_WORKERS overrides). Until stop 26 it was one more, since the suite spends much of
    // its time waiting on servers and child processes; stop 27's CI failed with three workers on 2 cores, vitest's
    // "Timeout calling onTaskUpdate": see test/helpers/yield-to-runner.ts for the cause found in stop 28.
    maxWorkers: Number(process.env.TOOLCAP_TEST_WORKERS) || availableParallelism(),
  },
});
