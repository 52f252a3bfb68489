import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    typecheck: { enabled: false },
    testTimeout: 20_000,
    // one turn of the event loop before each test, so the worker reads the runner's RPC answers (test/helpers/yield-to-runner.ts says why)
    setupFiles: ['test/helpers/runner-setup.ts'],
    // Until stop 26, one worker more than the cores (vitest's own default is one fewer): the suite spends about half
    // its time waiting on servers and child processes it starts, so a 2-core CI machine ran it on one
    // worker (485 s for the Node 20 run) while the Node 22/24 runs use three (~300 s). TOOLCAP_TEST_WORKERS overrides.
    // Stop 27: on a machine where the suite ran 2.2x slower, three workers on 2 cores ended every Node 20 run (3 of 3,
    // all 7,812 tests passing) with vitest's "Timeout calling onTaskUpdate" (a worker's report not answered within 60 s),
    // which fails the run: one worker per core leaves the main process room to answer.
    maxWorkers: Number(process.env.TOOLCAP_TEST_WORKERS) || availableParallelism(),
  },
});
