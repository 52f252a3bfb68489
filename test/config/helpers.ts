import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { loadConfig } from '../../src/config/config.js';

/**
 * Load config texts from files in a temporary folder (removed after the
 * file's tests) that has an empty source folder `m`: each text gets
 * `sources: [m]` in front.
 */
export function configLoader(prefix: string): (yaml: string) => ReturnType<typeof loadConfig> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(dir, 'm'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return (yaml) => {
    const file = join(dir, `c${Math.random().toString(16).slice(2, 8)}.yaml`);
    writeFileSync(file, `sources: [m]\n${yaml}`);
    return loadConfig(file);
  };
}
