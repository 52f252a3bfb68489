/**
 * The README's command examples run as written, from the checkout, and print
 * what the README shows: the broken manifest it ships in examples/bad/ and
 * the diff of examples/diff/.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/helpers.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The plain fenced block that follows the fenced block holding `command`. */
function shownAfter(command: string): string {
  const at = README.indexOf(command);
  expect(at, `README names ${command}`).toBeGreaterThan(0);
  const endOfCommands = README.indexOf('\n```\n', at);
  const open = README.indexOf('\n```\n', endOfCommands + 5);
  const close = README.indexOf('\n```\n', open + 5);
  return README.slice(open + 5, close + 1);
}

describe('README examples, run as written', () => {
  it('validate examples/bad/bad.yaml: exit 1 and exactly the output shown', async () => {
    const r = await cli('validate', 'examples/bad/bad.yaml');
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toBe(shownAfter('npx toolcap validate examples/bad/bad.yaml'));
  });

  it('diff examples/diff/base examples/diff/pr: exit 1, the lines shown (hashes and tails elided with …)', async () => {
    const r = await cli('diff', 'examples/diff/base', 'examples/diff/pr');
    expect(r.code).toBe(1);
    const printed = (r.stdout + r.stderr).trimEnd().split('\n');
    const shown = shownAfter('npx toolcap diff examples/diff/base examples/diff/pr --format github').trimEnd().split('\n');
    expect(printed).toHaveLength(shown.length);
    shown.forEach((line, i) => {
      // each "…" stands for elided text: the parts between must appear in order
      const pattern = new RegExp(`^${line.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
      expect(printed[i]).toMatch(pattern);
    });
  });

  it('diff --format github: the escalation without a bump is an error annotation on the PR line', async () => {
    const r = await cli('diff', 'examples/diff/base', 'examples/diff/pr', '--format', 'github');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^::error file=examples\/diff\/pr\/notes\.yaml,line=\d+,title=toolcap diff::notes\.search: escalation without a version bump/m);
  });
});
