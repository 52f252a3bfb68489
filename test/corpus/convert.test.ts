/**
 * Real catalogs through `toolcap convert`: each into the canonical format and
 * into MCP and OpenAI form, and each result read back with the same tools.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../src/registry/catalog.js';
import { cli } from '../cli/helpers.js';

const CORPUS = join('..', 'shared', 'corpus');

const SOURCES = [
  ['mcp-reference-servers/everything.json', 'mcp'],
  ['mcp-reference-servers/filesystem.json', 'mcp'],
  ['mcp-github-server/tools.json', 'mcp'],
  ['openapi/swagger-petstore3.openapi.yaml', 'openapi'],
  ['openapi/slack.web-api.swagger2.json', 'openapi'],
  ['openapi/github.api.github.com.json', 'openapi'],
  ['test/fixtures/openai/chat-tools.json', 'openai'],
  ['test/fixtures/openai/bfcl-python.json', 'openai'],
] as const;

const path = (p: string) => (p.startsWith('test/') ? p : join(CORPUS, p));

describe.each(SOURCES.filter(([p]) => existsSync(path(p))))('convert %s', (source, dialect) => {
  const original = buildCatalog([path(source)]);
  const names = original.catalog.tools.map((e) => e.value.name).sort();

  it(`reads as ${dialect} without errors`, () => {
    expect(original.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(original.catalog.documents.values()).size).toBeGreaterThan(0);
  });

  it.each(['toolcap', 'mcp', 'openai'])('to %s and back, with the same tools and no errors', async (target) => {
    const out = join(mkdtempSync(join(tmpdir(), 'toolcap-convert-')), target === 'toolcap' ? 'catalog.json' : 'tools.json');
    const result = await cli('convert', path(source), '--to', target, '--out', out);
    expect(result.code).toBe(0);
    const back = buildCatalog([out], { dialect: target as 'toolcap' | 'mcp' | 'openai' });
    expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    // names OpenAI rejects (repos.get) are written safe (repos_get); the mapping beside the file maps them back
    const mappingFile = out.replace(/\.json$/, '.names.json');
    const mapping = existsSync(mappingFile) ? (JSON.parse(readFileSync(mappingFile, 'utf8')) as Record<string, string>) : {};
    const written = back.catalog.tools.map((e) => e.value.id ?? e.value.name);
    if (target === 'openai') for (const name of written) expect(name, name).toMatch(/^[a-zA-Z0-9_-]{1,64}$|\./);
    expect(back.catalog.tools.map((e) => mapping[e.value.id ?? e.value.name] ?? e.value.name).sort()).toEqual(names);
    // effects the source said (MCP annotations, HTTP methods) survive into formats that can say them
    if (target !== 'openai') {
      for (const e of back.catalog.tools) {
        const before = original.catalog.tools.find((o) => o.value.name === e.value.name)?.value;
        expect(e.value.effects?.mode, e.value.name).toBe(before?.effects?.mode);
      }
    }
    expect(readFileSync(out, 'utf8').length).toBeGreaterThan(0);
  });
});
