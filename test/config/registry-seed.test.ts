/**
 * The MCP Registry's 2025-05 seed (../shared/corpus/mcp-registry-seed, 471
 * entries, see its SOURCE.md) through the server.json import: every entry
 * parses, and each either becomes an mcp.servers entry that the config's
 * JSON Schema accepts and the config loader reads without an error, or gets
 * a located diagnostic saying why it cannot be used.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { configJsonSchema, loadConfig } from '../../src/config/config.js';
import { addMcpServer } from '../../src/config/registry/config-edit.js';
import { serverConfigOf } from '../../src/config/registry/server-config.js';
import { parseServerJson } from '../../src/config/registry/server-json.js';
import { createAjv } from '../../src/model/validator.js';

const SEED = '../shared/corpus/mcp-registry-seed/seed_2025_05_16.json';
const text = readFileSync(SEED, 'utf8');
const parsed = parseServerJson(SEED, text);
const raw = JSON.parse(text) as Array<{ name: string; packages?: Array<{ registry_name: string }>; remotes?: unknown[] }>;
const validate = createAjv().compile(configJsonSchema());
const dir = mkdtempSync(join(tmpdir(), 'toolcap-seed-'));
mkdirSync(join(dir, 'm'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** How each entry came out, for the totals. */
const outcomes = new Map<string, string>();

describe('the MCP Registry seed through server.json import', () => {
  it('parses all 471 entries: 464 servers, and 7 blank entries (no name, no packages) each with a located error', () => {
    expect(raw).toHaveLength(471);
    expect(parsed.servers).toHaveLength(464);
    const blank = raw.flatMap((e, i) => (e.name === '' ? [`/${i}`] : []));
    expect(blank).toEqual(['/15', '/25', '/108', '/132', '/188', '/207', '/406']);
    const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => [d.code, d.pointer, typeof d.line])).toEqual(blank.map((p) => ['MISSING_FIELD', p, 'number']));
  });

  it.each(raw.map((e, i) => [i, e.name || '(blank)'] as const))('entry %i: %s', (i) => {
    const server = parsed.servers.find((s) => s.pointer === `/${i}`);
    if (!server) {
      expect(parsed.diagnostics.filter((d) => d.pointer === `/${i}`)).toMatchObject([{ code: 'MISSING_FIELD', file: SEED, line: expect.any(Number) }]);
      outcomes.set(`/${i}`, 'unparsable:MISSING_FIELD');
      return;
    }
    const built = serverConfigOf(server, parsed.file);
    if (!built.draft) {
      // genuinely unusable: said so at a line of the seed
      expect(built.diagnostics.length).toBeGreaterThan(0);
      for (const d of built.diagnostics) {
        expect(d).toMatchObject({ severity: 'error', file: SEED, line: expect.any(Number), pointer: expect.stringMatching(new RegExp(`^/${i}(/|$)`)) });
      }
      outcomes.set(`/${i}`, `unusable:${built.diagnostics[0]!.code}`);
      return;
    }
    const edited = addMcpServer('sources: [m]\n', built.draft);
    if ('reason' in edited) throw new Error(edited.message);
    // the schema editors use, and the loader toolcap uses
    expect(validate(parse(edited.text)), JSON.stringify(validate.errors)).toBe(true);
    const file = join(dir, `c${i}.yaml`);
    writeFileSync(file, edited.text);
    const loaded = loadConfig(file);
    expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(loaded.config?.mcp.servers.map((s) => s.name)).toEqual([built.draft.name]);
    // no value of a secret is written: every required setting appears only as its name
    for (const r of built.draft.required) expect(edited.text).toMatch(new RegExp(`\\{ ?env: ${r.variable} ?\\}|\\$\\{${r.variable}\\}`));
    outcomes.set(`/${i}`, built.draft.via.split(' ')[0]!);
  });

  it('the totals: 167 usable (every npm, pypi and docker entry, and 5 "unknown" packages with a remote), 304 not (297 "unknown" packages with no remote, 7 blank entries)', () => {
    const counts: Record<string, number> = {};
    for (const o of outcomes.values()) counts[o] = (counts[o] ?? 0) + 1;
    expect(outcomes.size).toBe(471);
    expect(counts).toEqual({ npm: 83, pypi: 53, docker: 26, remote: 5, 'unusable:INVALID_VALUE': 297, 'unparsable:MISSING_FIELD': 7 });
  });
});

describe('the comment addMcpServer writes above an entry', () => {
  it.each([
    ['an ANSI escape', 'acme/evil\u001b[2J'],
    ['a lone CR (a line break to some YAML readers)', 'acme/evil\rmcp: { servers: {} }'],
    ['a bidi override', 'acme/\u202eevil'],
  ])("holds the registry's text escaped: %s", (_label, entry) => {
    const draft = { name: 'evil', entry, via: 'npm @acme/evil', value: { command: 'npx', args: ['-y', '@acme/evil'] }, required: [], notes: [] };
    for (const base of ['sources: [m]\n', 'sources: [m]\nmcp:\n  servers:\n    other: { command: x }\n']) {
      const edited = addMcpServer(base, draft);
      if ('reason' in edited) throw new Error(edited.message);
      expect(edited.text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
      expect(edited.text).toContain('from the MCP Registry: acme/');
    }
  });
});
