/**
 * The bundled test children (test/helpers/child-bundle.ts) run the current
 * sources and find what the sources find when run in place: package.json,
 * data/vocabulary.json, runners/ and every SQLite driver this Node has. The
 * crash, CLI and driver tests rely on it; a bundle written at another depth,
 * or without a real `require`, would break them in ways less plain than this.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolcapVersion } from '../../src/model/version.js';
import { defaultVocabulary, vocabularyUrl } from '../../src/query/vocabulary.js';
import { runnerPath } from '../../src/runtime/providers/python-runner.js';
import { availableSqliteDrivers } from '../../src/store/sqlite-driver.js';
import { bundleChild } from './child-bundle.js';

describe('bundleChild', () => {
  it('runs with node and finds the files and drivers the sources find in place, then is removed', async () => {
    const bundle = await bundleChild(new URL('./child-bundle-child.ts', import.meta.url));
    try {
      const run = spawnSync(process.execPath, [bundle.file], { encoding: 'utf8', timeout: 30_000 });
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({
        version: toolcapVersion(),
        vocabularyUrl: vocabularyUrl().href,
        vocabularyWarning: defaultVocabulary().warning ?? null,
        runner: runnerPath(),
        drivers: availableSqliteDrivers(),
      });
      expect(toolcapVersion()).not.toBe('0.0.0');
    } finally {
      bundle.remove();
    }
    expect(existsSync(dirname(bundle.file))).toBe(false);
  });
});
