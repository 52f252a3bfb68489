import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import { warningDigest } from '../../src/cli/render.js';

const at = (code: string, file: string, line: number): Diagnostic => ({ severity: 'warning', code, message: `${code} here`, file, line, column: 2 }) as unknown as Diagnostic;

describe('warningDigest: serve shows its warnings in brief, with the command that shows them all', () => {
  it.each([
    ['no warnings: nothing', [], []],
    [
      'errors and infos are not warnings',
      [{ severity: 'error', code: 'X', message: 'x' } as unknown as Diagnostic, { severity: 'info', code: 'Y', message: 'y' } as unknown as Diagnostic],
      [],
    ],
    [
      'two warnings: counted by code, both shown, then the command',
      [at('B_CODE', 'b.yaml', 3), at('A_CODE', 'a.yaml', 1)],
      ['  warnings by code: A_CODE 1, B_CODE 1', '  b.yaml:3:2 B_CODE: B_CODE here', '  a.yaml:1:2 A_CODE: A_CODE here', '  all of them, with the lines and hints: RERUN'],
    ],
    [
      'five warnings: the most frequent code first, three shown, "2 more"',
      [at('A', 'f.yaml', 1), at('B', 'f.yaml', 2), at('B', 'f.yaml', 3), at('B', 'f.yaml', 4), at('A', 'f.yaml', 5)],
      ['  warnings by code: B 3, A 2', '  f.yaml:1:2 A: A here', '  f.yaml:2:2 B: B here', '  f.yaml:3:2 B: B here', '  2 more; all of them, with the lines and hints: RERUN'],
    ],
  ] as const)('%s', (_label, diagnostics, expected) => {
    expect(warningDigest(diagnostics as readonly Diagnostic[], 'RERUN')).toEqual(expected);
  });
});
