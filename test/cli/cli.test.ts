import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cli } from './helpers.js';

const BASE = 'test/fixtures/core/base';
const OVERLAY = 'test/fixtures/core/overlay';
const tmp = () => mkdtempSync(join(tmpdir(), 'toolcap-cli-'));
const write = (dir: string, name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('toolcap validate', () => {
  it.each([
    ['valid manifests with warnings', [BASE], 0],
    ['warnings under --strict', [BASE, '--strict'], 1],
    ['a missing path', ['does/not/exist'], 2],
    ['no path at all', [], 2],
    ['an unknown --dialect', [BASE, '--dialect', 'klingon'], 2],
  ])('%s -> exit %i', async (_name, args, code) => {
    expect((await cli('validate', ...args)).code).toBe(code);
  });

  it('exits 1 on errors, printing file:line:column, a caret excerpt and a hint', async () => {
    const dir = tmp();
    const file = write(dir, 'bad.yaml', 'toolcap: 1\ntools:\n  - name: x\n    effects: { sideEffects: teleport }\n');
    const { code, stdout } = await cli('validate', file);
    expect(code).toBe(1);
    expect(stdout).toContain(`${file}:4:29: error UNKNOWN_ENUM_VALUE`);
    expect(stdout).toMatch(/\n\s+4 \|\s+effects: \{ sideEffects: teleport \}\n\s+\|\s+\^\n/);
    expect(stdout).toContain('hint:');
  });

  it('--json prints {ok, tools, diagnostics} with codes and positions', async () => {
    const { code, stdout } = await cli('validate', BASE, OVERLAY, '--json');
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as { ok: boolean; tools: number; diagnostics: Array<Record<string, unknown>> };
    expect(out.ok).toBe(true);
    expect(out.tools).toBe(5);
    expect(out.diagnostics.length).toBeGreaterThan(0);
    for (const d of out.diagnostics) expect(Object.keys(d)).toEqual(expect.arrayContaining(['code', 'severity', 'message', 'file']));
  });

  it('--json is ok: false and exit 1 when strict and there are warnings', async () => {
    const { code, stdout } = await cli('validate', BASE, '--json', '--strict');
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ ok: false });
  });

  it('names the formats it tried for an explicit file in no known format', async () => {
    const file = write(tmp(), 'schema.json', '{"type": "object", "properties": {}}');
    const { code, stdout } = await cli('validate', file, '--json');
    expect(code).toBe(1);
    expect(JSON.parse(stdout).diagnostics).toMatchObject([{ code: 'UNKNOWN_FORMAT', file, line: 1 }]);
  });

  it('skips non-manifests in a folder walk with a note, not an error', async () => {
    const dir = tmp();
    write(dir, 'schema.json', '{"type": "object"}');
    write(dir, 'tools.yaml', 'toolcap: 1\ntools:\n  - name: a\n    effects: { mode: read, sideEffects: none }\n');
    const { code, stdout } = await cli('validate', dir, '--json');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).diagnostics).toMatchObject([{ code: 'NOT_A_MANIFEST', severity: 'info' }]);
  });

  it.each([
    ['truncated JSON', 'a.json', '{"toolcap": 1, "tools": [', 'PARSE_ERROR'],
    ['an empty file', 'a.yaml', '', 'FILE_EMPTY'],
    ['wrong types', 'a.yaml', 'toolcap: 1\ntools: {name: x}\n', 'TYPE_MISMATCH'],
  ])('%s gets a located diagnostic and exit 1, never a crash', async (_n, name, text, code) => {
    const file = write(tmp(), name, text);
    const out = await cli('validate', file, '--json');
    expect(out.code).toBe(1);
    expect(JSON.parse(out.stdout).diagnostics[0]).toMatchObject({ code, file });
    expect(out.stderr).not.toContain('internal error');
  });
});

describe('toolcap inspect', () => {
  it('--json prints the merged catalog with provenance', async () => {
    const { code, stdout } = await cli('inspect', BASE, OVERLAY, '--json');
    expect(code).toBe(0);
    const doc = JSON.parse(stdout) as Record<string, unknown[]>;
    expect(Object.keys(doc)).toEqual(['tools', 'skills', 'agents', 'jobs', 'provenance']);
    expect(doc['tools']).toHaveLength(5);
    expect(doc['provenance']).toHaveProperty(['files.delete', 1, 'layer'], 1);
  });

  it('--persona shows that persona\'s view', async () => {
    const { stdout } = await cli('inspect', BASE, OVERLAY, '--json', '--persona', 'Researcher');
    const names = (JSON.parse(stdout) as { tools: Array<{ name: string; cost?: { lane?: string } }> }).tools.map((t) => `${t.name}:${t.cost?.lane ?? '-'}`);
    expect(names).toEqual(['files.delete:-', 'files.read:-', 'web.search:medium']);
  });

  it('prints a readable listing marking derived values', async () => {
    const { stdout } = await cli('inspect', BASE);
    expect(stdout).toContain('files.delete 1.0.0  [shared]');
    expect(stdout).toMatch(/risk low\*/);
  });

  it('--out writes the JSON catalog', async () => {
    const out = join(tmp(), 'nested', 'catalog.json');
    expect((await cli('inspect', BASE, '--out', out)).code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).tools).toHaveLength(5);
  });
});

describe('toolcap convert', () => {
  it('writes the canonical format without derived values', async () => {
    const { code, stdout } = await cli('convert', BASE, OVERLAY, '--to', 'toolcap');
    expect(code).toBe(0);
    const doc = parse(stdout) as { toolcap: number; tools: Array<Record<string, unknown>> };
    expect(doc.toolcap).toBe(1);
    const search = doc.tools.find((t) => t['name'] === 'web.search' && !t['scope']);
    expect(search).toEqual({ name: 'web.search', description: 'Search the web', effects: { sideEffects: 'read_external_service' }, cost: { lane: 'low', estimatedDollars: 0.002 } });
  });

  it('refuses to convert input with errors, writing nothing', async () => {
    const dir = tmp();
    const file = write(dir, 'bad.yaml', 'toolcap: 1\ntools:\n  - name: x\n    effects: { mode: teleport }\n');
    const out = join(dir, 'out.yaml');
    const result = await cli('convert', file, '--to', 'toolcap', '--out', out);
    expect(result.code).toBe(1);
    expect(() => readFileSync(out)).toThrow();
  });

  it.each([
    ['--to is required', ['convert', BASE]],
    ['--to must be a dialect', ['convert', BASE, '--to', 'klingon']],
  ])('%s (exit 2)', async (_n, args) => {
    expect((await cli(...args)).code).toBe(2);
  });
});

describe('toolcap schema and help', () => {
  it('prints the canonical JSON Schema', async () => {
    const { code, stdout } = await cli('schema');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', required: ['toolcap'] });
  });

  it.each([['--help'], ['--version'], ['validate', '--help']])('%s exits 0', async (...args) => {
    expect((await cli(...args)).code).toBe(0);
  });

  it('--version prints the version in package.json (from the built dist, not a 0.0.0 fallback)', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const { code, stdout } = await cli('--version');
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(version);
    expect(version).not.toBe('0.0.0');
  });

  it('an unknown command is a usage error', async () => {
    expect((await cli('frobnicate')).code).toBe(2);
  });
});

describe('toolcap convert across formats', () => {
  it('writes values the source said in other words as declarations of the target format', async () => {
    const { code, stdout } = await cli('convert', 'examples/manifests/capability/github.create_pull_request.yaml', '--to', 'atlas');
    expect(code).toBe(0);
    const [tool] = JSON.parse(stdout) as Array<Record<string, unknown>>;
    // capability says `external: true` + `mode: write`; ATLAS can only say side_effects
    expect(tool).toMatchObject({ name: 'github.create_pull_request', side_effects: 'write' });
  });

  it('never writes what toolcap merely assumed', async () => {
    const { stdout } = await cli('convert', BASE, '--to', 'toolcap');
    const doc = parse(stdout) as { tools: Array<{ name: string; execution?: { timeoutSec?: number } }> };
    // no layer declared a timeout for web.search: the assumed 30 s must not become a declaration
    expect(doc.tools.find((t) => t.name === 'web.search')?.execution).toBeUndefined();
  });

  it('gives a format its own file back unchanged when converting to the same format', async () => {
    const source = 'examples/manifests/atlas/modules/Tools/tool_maps/functions.json';
    const { code, stdout } = await cli('convert', source, '--to', 'atlas');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual(JSON.parse(readFileSync(source, 'utf8')));
  });
});

describe('names that break the pattern are reported wherever they come from', () => {
  it.each([
    ['a skill', 'toolcap: 1\nskills:\n  - name: Research Skill\n', 'INVALID_TOOL_NAME', 3],
    ['an agent', 'toolcap: 1\nagents:\n  - name: The Agent\n', 'INVALID_TOOL_NAME', 3],
    ['a job', 'toolcap: 1\njobs:\n  - name: Night Job\n', 'INVALID_TOOL_NAME', 3],
  ])('%s', async (_n, text, code, line) => {
    const file = write(tmp(), 'a.yaml', text);
    const out = JSON.parse((await cli('validate', file, '--json')).stdout) as { diagnostics: Array<{ code: string; line?: number }> };
    expect(out.diagnostics).toMatchObject([{ code, line }]);
  });

  it('a name a dialect derived from a source id is still checked', async () => {
    const dir = tmp();
    const registry = join(dir, 'config', 'registry');
    (await import('node:fs')).mkdirSync(registry, { recursive: true });
    // the shared naming rule turns ".My Tool" into ".my_tool", which still starts with a dot
    const tool = { id: '.My Tool', name: 'My Tool', version: '1.0.0', description: 'x', enabled: true, tags: [], metadata: {}, surface: { domains: ['tasks'], entities: [], operations: ['read'], taskRoles: ['observer'], authority: 0.5, freshnessSlaSec: 60 }, capabilities: ['tasks.read'], deterministic: true, riskLevel: 'low' };
    write(registry, 'tools.json', JSON.stringify({ tools: [tool] }));
    const out = JSON.parse((await cli('validate', dir, '--json')).stdout) as { diagnostics: Array<{ code: string }> };
    expect(out.diagnostics.map((d) => d.code)).toContain('INVALID_TOOL_NAME');
  });
});

describe('a schema\'s regular expressions', () => {
  it('a pattern that is not ECMAScript (u flag) is an error, one only V8 can run a warning, each at its line', async () => {
    const text = [
      'toolcap: 1',
      'tools:',
      '  - name: notes.find',
      '    effects: { mode: read, sideEffects: none }',
      '    inputSchema:',
      '      type: object',
      '      properties:',
      '        slug: { type: string, pattern: "^[\\\\w-.]+$" }',
      '  - name: codes.check',
      '    effects: { mode: read, sideEffects: none }',
      '    inputSchema:',
      '      properties:',
      '        code:',
      '          type: string',
      '          pattern: "^(?=.*[0-9])[a-z0-9]{8,}$"',
      '',
    ].join('\n');
    const file = write(tmp(), 'a.yaml', text);
    const { code, stdout } = await cli('validate', file, '--json');
    const out = JSON.parse(stdout) as { diagnostics: Array<{ code: string; line?: number; severity: string }> };
    expect(out.diagnostics.map((d) => [d.code, d.severity, d.line])).toEqual([['INVALID_JSON_SCHEMA', 'error', 8], ['PATTERN_BACKTRACKS', 'warning', 15]]);
    expect(code).toBe(1);
  });
});

describe('an empty catalog', () => {
  it.each([
    ['validate', ['validate'], 0, /0 tools; 0 errors/],
    ['inspect for an unknown persona', ['inspect', '--persona', 'Nobody', '--json'], 0, /"tools": \[\]/],
    ['convert to the canonical format', ['convert', '--to', 'toolcap'], 0, /toolcap: 1/],
    ['convert to a format with nothing to hold', ['convert', '--to', 'atlas'], 1, /catalog is empty/],
  ])('%s', async (_name, args, code, output) => {
    const dir = tmp();
    const [command, ...rest] = args as [string, ...string[]];
    const result = await cli(command, dir, ...rest);
    expect(result.code).toBe(code);
    expect(result.stdout + result.stderr).toMatch(output);
  });

  it('diff of two empty sets passes', async () => {
    const result = await cli('diff', tmp(), tmp());
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/0 changed, 0 added, 0 removed/);
  });
});
