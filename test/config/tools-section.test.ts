/**
 * The config's `tools` section: per tool, its configuration values (secrets
 * as `{ env: NAME }`) and SQL settings, read with their places in the file,
 * then held against the catalog's declared configuration schemas: each
 * finding points at the config line it is about.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { run } from '../../src/cli/program.js';
import { configJsonSchema, loadConfig } from '../../src/config/config.js';
import { toolSettingsDiagnostics } from '../../src/config/tool-settings.js';
import { createAjv } from '../../src/model/validator.js';
import type { Tool } from '../../src/model/schema.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A project: a Shinkai tool "Notes" (owner and apiKey required) and a config. */
function project(config: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolcap-tools-config-')));
  dirs.push(dir);
  mkdirSync(join(dir, 'tools', 'notes'), { recursive: true });
  const metadata = {
    name: 'Notes',
    tool_type: 'javascript',
    configurations: { type: 'object', properties: { owner: { type: 'string', description: 'who' }, apiKey: { type: 'string', description: 'key' } }, required: ['owner', 'apiKey'] },
    parameters: { type: 'object', properties: {} },
  };
  writeFileSync(join(dir, 'tools', 'notes', 'metadata.json'), JSON.stringify(metadata, null, 2));
  const path = join(dir, 'toolcap.config.yaml');
  writeFileSync(path, `sources: [tools/]\n${config}`);
  return path;
}

const NOTES = { name: 'notes', configSchema: { type: 'object', properties: { owner: { type: 'string' }, apiKey: { type: 'string' } }, required: ['owner', 'apiKey'] } } as Tool;

describe('the tools section, read', () => {
  it('keeps values verbatim (env references unresolved) and where each is written', () => {
    const { config, diagnostics } = loadConfig(project('tools:\n  notes:\n    configurations:\n      owner: ada\n      apiKey: { env: NOTES_KEY }\n    sql: { allowAdHoc: true }\n'));
    expect(diagnostics).toEqual([]);
    expect(config?.tools.settings).toEqual({ notes: { configurations: { owner: 'ada', apiKey: { env: 'NOTES_KEY' } }, sql: { allowAdHoc: true } } });
    expect(config?.tools.locations['notes']).toMatchObject({ entry: { line: 3 }, configurations: { line: 4 }, keys: { owner: { line: 5 }, apiKey: { line: 6 } } });
  });

  it.each([
    ['an env reference with another key', 'tools:\n  notes:\n    configurations:\n      apiKey: { env: K, default: x }\n', 'INVALID_VALUE', '/tools/notes/configurations/apiKey', 5],
    ['an env reference that is not a name', 'tools:\n  notes:\n    configurations:\n      apiKey: { env: 12 }\n', 'INVALID_VALUE', '/tools/notes/configurations/apiKey', 5],
    ['allowAdHoc not a boolean', 'tools:\n  notes:\n    sql: { allowAdHoc: "yes" }\n', 'TYPE_MISMATCH', '/tools/notes/sql/allowAdHoc', 4],
    ['an unknown key of a tool', 'tools:\n  notes:\n    configuration: {}\n', 'UNKNOWN_FIELD', '/tools/notes/configuration', 4],
    ['a tool entry that is not an object (ignored, as ATLAS\'s other tools.* keys)', 'tools:\n  notes: yes\n', 'UNKNOWN_FIELD', '/tools/notes', 3],
  ])('%s: %s at its line', (_, text, code, pointer, line) => {
    const { diagnostics } = loadConfig(project(text));
    expect(diagnostics).toMatchObject([{ code, pointer, line }]);
  });

  it('the JSON Schema of a config accepts the section, and refuses a malformed sql setting', () => {
    const validate = createAjv().compile(configJsonSchema());
    expect(validate(parse('sources: [m]\ntools:\n  notes:\n    configurations: { owner: ada, apiKey: { env: NOTES_KEY } }\n    sql: { allowAdHoc: false }\n'))).toBe(true);
    expect(validate(parse('sources: [m]\ntools:\n  notes:\n    sql: { allowAdHoc: 1 }\n'))).toBe(false);
  });
});

describe('the tools section against the catalog', () => {
  it.each([
    ['a required value missing: at the configurations', 'tools:\n  notes:\n    configurations:\n      owner: ada\n', {}, /"apiKey" is not given/, 4],
    ['a value of the wrong type: at the value', 'tools:\n  notes:\n    configurations:\n      owner: 7\n      apiKey: k\n', {}, /\/owner must be string/, 5],
    ['an unset variable: at the value', 'tools:\n  notes:\n    configurations:\n      owner: ada\n      apiKey: { env: NOTES_KEY }\n', {}, /NOTES_KEY is not set/, 6],
    ['no entry at all: at the top of the config file', '', {}, /"owner" is not given/, 1],
  ])('%s', (_, text, env, message, line) => {
    const { config } = loadConfig(project(text));
    const found = toolSettingsDiagnostics(config!.tools, [NOTES], env);
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]).toMatchObject({ code: 'TOOL_CONFIGURATION_INVALID', severity: 'warning', message: expect.stringMatching(message), file: config!.file });
    expect(found[0]?.line).toBe(line);
  });

  it('nothing to say when the values check out; settings of a tool the catalog lacks are UNKNOWN_REFERENCE', () => {
    const { config } = loadConfig(project('tools:\n  notes:\n    configurations: { owner: ada, apiKey: { env: NOTES_KEY } }\n  gone: {}\n'));
    expect(toolSettingsDiagnostics(config!.tools, [NOTES], { NOTES_KEY: 'k' })).toMatchObject([{ code: 'UNKNOWN_REFERENCE', line: 5, message: expect.stringMatching(/"gone"/) }]);
  });

  it('toolcap validate --config shows them, located in the config', async () => {
    const path = project('tools:\n  notes:\n    configurations:\n      owner: ada\n');
    let stdout = '';
    let stderr = '';
    const code = await run(['validate', '--config', path], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
    expect(`${stdout}${stderr}`).toMatch(/toolcap\.config\.yaml:4:\d+.*TOOL_CONFIGURATION_INVALID/);
    expect(code).toBe(0);
  });
});
