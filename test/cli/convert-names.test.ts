/**
 * `toolcap convert --to openai` on the shipped example manifests: dotted
 * names (`notes.append`) are written as names OpenAI accepts, each change is
 * a warning on stderr, and `--out` writes the mapping beside the file, which
 * maps the names read back to the canonical ones.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCatalog } from '../../src/registry/catalog.js';
import { cli } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'toolcap-convert-names-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SOURCE = 'examples/manifests/toolcap';

describe('convert --to openai', () => {
  it('to stdout: safe names, a warning per change', async () => {
    const { code, stdout, stderr } = await cli('convert', SOURCE, '--to', 'openai');
    expect(code).toBe(0);
    const names = (JSON.parse(stdout) as Array<{ function: { name: string } }>).map((t) => t.function.name);
    expect(names).toContain('notes_append');
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(stderr).toContain('warning: openai names: RENAMED: "notes.append" -> "notes_append"');
  });

  it('with --out: the mapping beside the file maps the names back', async () => {
    const out = join(dir, 'tools.json');
    const { code, stderr } = await cli('convert', SOURCE, '--to', 'openai', '--out', out);
    expect(code, stderr).toBe(0);
    const mappingFile = join(dir, 'tools.names.json');
    expect(existsSync(mappingFile)).toBe(true);
    const mapping = JSON.parse(readFileSync(mappingFile, 'utf8')) as Record<string, string>;
    expect(mapping['notes_append']).toBe('notes.append');
    const original = buildCatalog([SOURCE]).catalog.tools.map((e) => e.value.name).sort();
    const back = buildCatalog([out], { dialect: 'openai' }).catalog.tools.map((e) => mapping[e.value.id ?? e.value.name] ?? e.value.name).sort();
    expect(back).toEqual(original);
  });
});
