/**
 * 6. `convert --out` with hostile persona names. ATLAS writes a persona's
 * tools to `modules/Personas/<persona>/Toolbox/functions.json`, so a
 * canonical manifest declaring `scope: { personas: ["../../escape"] }`
 * tries to steer the write. Nothing may land outside the --out folder, and
 * a name the file system refuses must not crash the command.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dialectIds } from '../../src/dialects/lookup.js';
import { cli } from '../cli/helpers.js';
import { DIALECTS, expectNoCrash, listFiles, put, tmp, validate, removeTmp } from './helpers.js';

afterAll(removeTmp);

const HOSTILE_PERSONAS = [
  '../../escape',
  '../../../escape',
  '../../../../../escape',
  '../../../../../../../../../../tmp/toolcap-adv-escaped',
  '..',
  '../..',
  '.',
  '',
  'a/../../../../b',
  '/absolute',
  '/tmp/toolcap-adv-absolute',
  '..\\..\\..\\windows',
  'C:\\Windows',
  '~',
  '$HOME',
];

/** A canonical manifest: a shared tool, a tool and a job owned by `persona`. */
function manifest(persona: string): string {
  const p = JSON.stringify(persona);
  return [
    'toolcap: 1',
    'tools:',
    '  - name: shared.read',
    '    effects: { mode: read, sideEffects: none }',
    '  - name: persona.read',
    `    scope: { personas: [${p}] }`,
    '    effects: { mode: read, sideEffects: none }',
    'jobs:',
    '  - name: nightly',
    `    extensions: { atlas: { $persona: ${p} } }`,
    '',
  ].join('\n');
}

/** Run convert into root/x/y/out and report every file written outside out. */
async function convertInto(text: string, to: string) {
  const root = tmp('toolcap-adv-convert-');
  const input = put(root, 'in/tools.yaml', text);
  const out = join(root, 'x', 'y', 'out');
  const before = new Set(listFiles(root));
  const r = await cli('convert', input, '--to', to, '--out', out);
  expectNoCrash(r);
  const written = listFiles(root).filter((f) => !before.has(f));
  const outside = written.filter((f) => !f.startsWith(out + sep) && f !== out);
  return { r, root, out, written, outside };
}

describe.each(HOSTILE_PERSONAS.map((p) => [JSON.stringify(p), p]))('persona %s', (_shown, persona) => {
  it('convert --to atlas writes nothing outside --out', async () => {
    const { r, out, outside } = await convertInto(manifest(persona), 'atlas');
    expect([0, 1]).toContain(r.code);
    expect(outside).toEqual([]);
    // and nothing where the persona path would have led, even far above the tmp folder
    for (const folder of ['Toolbox/functions.json', 'Jobs/jobs.json']) {
      const target = resolve(out, 'modules', 'Personas', ...persona.split('/'), ...folder.split('/'));
      if (!target.startsWith(out + sep)) expect(existsSync(target), target).toBe(false);
    }
  });
});

describe('persona names the file system refuses', () => {
  it.each([
    ['a NUL byte', 'a\u0000b'],
    ['300 characters', 'p'.repeat(300)],
  ])('%s -> a diagnostic or a refusal, not a crash; nothing outside --out', async (_what, persona) => {
    const { r, outside } = await convertInto(manifest(persona), 'atlas');
    expect([1, 2]).toContain(r.code);
    expect(outside).toEqual([]);
  });
});

describe.each(dialectIds().filter((id) => DIALECTS.some((d) => d.id === id)).map((id) => [id]))('convert --to %s with hostile names everywhere', (to) => {
  it('writes nothing outside --out', async () => {
    const personas = HOSTILE_PERSONAS.map((p) => JSON.stringify(p)).join(', ');
    const text = [
      'toolcap: 1',
      'tools:',
      `  - name: a.read`,
      `    scope: { personas: [${personas}] }`,
      '    effects: { mode: read, sideEffects: none }',
      '  - name: b.read',
      '    title: "../../../../escape"',
      '    id: "../../../../escape"',
      '    effects: { mode: read, sideEffects: none }',
      '',
    ].join('\n');
    const { r, outside, written } = await convertInto(text, to);
    expect([0, 1]).toContain(r.code);
    expect(outside).toEqual([]);
    if (r.code === 0) expect(written.length).toBeGreaterThan(0);
  });
});

describe('what convert writes can be read back', () => {
  // Shinkai derives every canonical name from its human-readable name; Xena from an id that is not lowercase.
  it.each([
    ['shinkai', 'shinkai/full'],
    ['xena', 'xena/wrapped/config/registry/tools.json'],
  ])('%s -> toolcap gives a manifest that validates without errors', async (_id, fixture) => {
    const dir = tmp();
    const out = join(dir, 'toolcap.yaml');
    const r = await cli('convert', join('test', 'fixtures', fixture), '--to', 'toolcap', '--out', out);
    expectNoCrash(r);
    expect(r.code, r.stderr).toBe(0);
    const back = await validate(out);
    expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(readFileSync(out, 'utf8')).toMatch(/name: /);
  });
});
