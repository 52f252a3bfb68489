import { describe, expect, it } from 'vitest';
import { readResourceLimits, withResourceLimits } from '../../../src/runtime/containment/resource-limits.js';

describe('readResourceLimits', () => {
  it.each([
    [undefined, {}, []],
    [{}, {}, []],
    [{ memoryMb: 256, cpuSec: 10, openFiles: 128 }, { memoryMb: 256, cpuSec: 10, openFiles: 128 }, []],
    [{ memory_mb: 64, cpu_seconds: 2, max_open_files: 32 }, { memoryMb: 64, cpuSec: 2, openFiles: 32 }, []],
    [{ timeout_seconds: 10, concurrency: 'queue' }, {}, []], // hints toolcap does not enforce
    [{ memoryMb: '256' }, {}, ['execution.resources.memoryMb must be a positive integer']],
    [{ cpuSec: 1.5, openFiles: -1 }, {}, ['execution.resources.cpuSec must be a positive integer', 'execution.resources.openFiles must be a positive integer']],
  ])('%j -> %j', (resources, limits, problems) => {
    expect(readResourceLimits(resources)).toEqual({ limits, problems });
  });
});

describe('withResourceLimits', () => {
  it.each([
    [{}, '/usr/bin/prlimit', { command: 'tool', args: ['a'], unenforced: [] }],
    [{ memoryMb: 1 }, '/usr/bin/prlimit', { command: '/usr/bin/prlimit', args: ['--data=1048576', '--', 'tool', 'a'], unenforced: [] }],
    [
      { memoryMb: 2, cpuSec: 3, openFiles: 4 },
      '/usr/bin/prlimit',
      { command: '/usr/bin/prlimit', args: ['--data=2097152', '--cpu=3:4', '--nofile=4', '--', 'tool', 'a'], unenforced: [] },
    ],
    [{ cpuSec: 3, openFiles: 4 }, null, { command: 'tool', args: ['a'], unenforced: ['cpuSec', 'openFiles'] }],
  ] as const)('%j with prlimit %s', (limits, prlimit, expected) => {
    expect(withResourceLimits('tool', ['a'], limits, prlimit)).toEqual(expected);
  });
});
