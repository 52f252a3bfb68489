import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    typecheck: { enabled: false },
    testTimeout: 20_000,
    // One worker more than the cores (vitest's own default is one fewer): the suite spends about half
    // its time waiting on servers and child processes it starts, so a 2-core CI machine ran it on one
    // worker (485 s for the Node 20 run) while the Node 22/24 runs use three (~300 s). TOOLCAP_TEST_WORKERS overrides.
    maxWorkers: Number(process.env.TOOLCAP_TEST_WORKERS) || availableParallelism() + 1,
  },
});
