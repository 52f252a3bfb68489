import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

const TESTS = 'test/**/*.test.ts';

/**
 * Test files that put vitest's fake clock in place (`vi.useFakeTimers`), found by reading the files so that a new
 * one is never missed. Each runs in a fresh worker of its own: in a shared worker, timers that work left running
 * by an earlier file schedules (a reload loop, a retry, a sweep) land on the fake clock and run when the test
 * advances it; under test/mcp/sessions.test.ts that hung the test in 2 of 4 full runs (stop 28).
 */
function fakeClockFiles(): string[] {
  return (readdirSync('test', { recursive: true, encoding: 'utf8' }) as string[])
    .filter((path) => path.endsWith('.test.ts'))
    .map((path) => `test/${path.replaceAll('\\', '/')}`)
    .filter((path) => readFileSync(path, 'utf8').includes('useFakeTimers'))
    .sort();
}

const ownWorker = fakeClockFiles();
const workers = Number(process.env.TOOLCAP_TEST_WORKERS) || availableParallelism();

export default defineConfig({
  test: {
    // no include here: the projects below name their files (extends: true would add a list here to theirs)
    typecheck: { enabled: false },
    testTimeout: 20_000,
    // one turn of the event loop before each test, so the worker reads the runner's RPC answers (test/helpers/yield-to-runner.ts says why)
    setupFiles: ['test/helpers/runner-setup.ts'],
    // an environment variable a test stubs is put back after it, since the next file may run in the same worker
    unstubEnvs: true,
    unstubGlobals: true,
    // Test files share workers (isolate: false): importing src/ afresh for each of the ~280 files was about half of
    // the suite's time (stop 28: 297 s of 584 s on a 2-core machine). Vitest still gives each project its own
    // workers, recycled between projects, which is how the fake-clock files below get a fresh worker each.
    poolOptions: { forks: { isolate: false } },
    // One worker per core (TOOLCAP_TEST_WORKERS overrides). Until stop 26 it was one more, since the suite spends much of
    // its time waiting on servers and child processes; stop 27's CI failed with three workers on 2 cores, vitest's
    // "Timeout calling onTaskUpdate": see test/helpers/yield-to-runner.ts for the cause found in stop 28.
    maxWorkers: workers,
    // and never fewer: tinypool ends a worker that finds no file waiting once there are more than minWorkers
    // (vitest's default is one less than the cores), and a worker being ended that way still takes the next file
    // queued, here the first file of the next project, which then fails with "Terminating worker thread" (seen
    // in 2 of 2 runs with three workers on 2 cores; tinypool's _onWorkerAvailable runs for a removed worker)
    minWorkers: workers,
    projects: [
      { extends: true, test: { name: 'shared', include: [TESTS], exclude: [...configDefaults.exclude, ...ownWorker] } },
      ...ownWorker.map((file) => ({ extends: true, test: { name: `own:${basename(file, '.test.ts')}`, include: [file] } })),
    ],
  },
});
