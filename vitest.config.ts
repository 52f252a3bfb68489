import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    typecheck: { enabled: false },
    testTimeout: 20_000,
    // one turn of the event loop before each test, so the worker reads the runner's RPC answers (test/helpers/yield-to-runner.ts says why)
    setupFiles: ['test/helpers/runner-setup.ts'],
    // Test files share their worker's module cache (isolate: false): each file no longer imports src/ afresh, which
    // was 300 s of the 2-core CI machine's 580 s Node 20 run (vitest's "collect"); shared, it is 30 s and the run 364 s,
    // every test passing. Files that change process-wide state (environment variables, the working folder, fake
    // timers) put it back in afterEach/finally, as they must for the tests after them in the same file anyway.
    isolate: false,
    // One worker per core (TOOLCAP_TEST_WORKERS overrides). Until stop 26 it was one more, since the suite spends much of
    // its time waiting on servers and child processes; stop 27's CI failed with three workers on 2 cores, vitest's
    // "Timeout calling onTaskUpdate": see test/helpers/yield-to-runner.ts for the cause found in stop 28.
    maxWorkers: Number(process.env.TOOLCAP_TEST_WORKERS) || availableParallelism(),
  },
});
