/**
 * The version rule of `toolcap diff`: when does a tool's new version count as
 * a bump that may carry an escalation?
 * @module
 */
import { gt, valid } from 'semver';

/**
 * True when both versions are valid semver and the new one is greater by
 * semver precedence (any increase: patch, minor, major, or a later
 * prerelease). A missing or unparsable version on either side is never a
 * bump: an increase that cannot be shown did not happen.
 * @example
 * isVersionBump('1.0.0', '1.0.1')       // true
 * isVersionBump('1.0.0-rc.1', '1.0.0')  // true: a release follows its prereleases
 * isVersionBump('1.0.0', '1.0.0-rc.1')  // false
 * isVersionBump(undefined, '1.0.0')     // false
 */
export function isVersionBump(oldVersion: string | undefined, newVersion: string | undefined): boolean {
  const from = valid(oldVersion);
  const to = valid(newVersion);
  return from !== null && to !== null && gt(to, from);
}

/**
 * True when a version is valid semver: what a new tool that writes must
 * declare, so that later escalations have something to bump.
 * @example isVersioned('1.2.0') // true; isVersioned('latest') // false
 */
export function isVersioned(version: string | undefined): boolean {
  return valid(version) !== null;
}
