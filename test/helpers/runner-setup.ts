/** Loaded before every test file (vitest.config.ts setupFiles): one turn of the event loop before each test (yield-to-runner.ts says why). */
import { beforeEach } from 'vitest';
import { yieldToRunner } from './yield-to-runner.js';

beforeEach(yieldToRunner);
