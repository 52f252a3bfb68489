import { describe, expect, it } from 'vitest';
import { isVersionBump, isVersioned } from '../../src/drift/version.js';

describe('isVersionBump', () => {
  it.each<[string | undefined, string | undefined, boolean]>([
    ['1.0.0', '1.0.1', true],
    ['1.0.0', '1.1.0', true],
    ['1.0.0', '2.0.0', true],
    ['0.1.9', '0.1.10', true], // numeric, not text, order
    ['1.0.0', '1.0.0', false],
    ['1.2.0', '1.1.9', false],
    ['1.0.0-rc.1', '1.0.0', true],
    ['1.0.0', '1.0.0-rc.1', false],
    ['1.0.0-alpha', '1.0.0-beta', true],
    ['1.0.0-rc.2', '1.0.0-rc.10', true],
    ['1.0.0', '1.0.1-rc.0', true],
    ['1.0.0+build.1', '1.0.0+build.2', false], // build metadata has no precedence
    ['v1.0.0', 'v1.0.1', true],
    ['1.0', '1.1', false], // not semver
    ['latest', '1.0.0', false],
    [undefined, '1.0.0', false],
    ['1.0.0', undefined, false],
    [undefined, undefined, false],
  ])('%s -> %s: %s', (from, to, bump) => {
    expect(isVersionBump(from, to)).toBe(bump);
  });
});

describe('isVersioned', () => {
  it.each<[string | undefined, boolean]>([
    ['1.0.0', true],
    ['1.0.0-rc.1', true],
    ['1.0', false],
    ['latest', false],
    [undefined, false],
  ])('%s: %s', (version, ok) => {
    expect(isVersioned(version)).toBe(ok);
  });
});
