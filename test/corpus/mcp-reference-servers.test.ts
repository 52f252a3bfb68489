/**
 * The MCP reference servers' real `tools/list` output
 * (../shared/corpus/mcp-reference-servers, see its SOURCE.md): every file
 * loads with no errors, round-trips exactly, and its annotations come out as
 * hints and the effects they imply.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcpDialect } from '../../src/dialects/mcp.js';
import { detectDialect } from '../../src/dialects/lookup.js';
import type { ImportedDocument } from '../../src/dialects/types.js';
import { canonicalValidator } from '../../src/model/validator.js';
import { importFile } from '../dialects/contract.js';

const DIR = '../shared/corpus/mcp-reference-servers';

/** Tool counts from SOURCE.md. */
const SERVERS = [
  ['everything', 16],
  ['fetch', 1],
  ['filesystem', 14],
  ['git', 12],
  ['memory', 9],
  ['sequentialthinking', 1],
  ['time', 2],
] as const;

const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;
const load = (server: string) => importFile(mcpDialect, join(DIR, `${server}.json`));
const fragmentOf = (doc: ImportedDocument) => ({ ...(doc.bundle ? { bundle: doc.bundle } : {}), tools: doc.tools.map((t) => t.value) });
const tool = (doc: ImportedDocument, name: string) => doc.tools.find((t) => t.value.name === name)?.value;

describe.each(SERVERS.map(([server, count]) => [server, count] as const))('mcp-reference-servers/%s.json', (server, count) => {
  const { value, imported, diagnostics } = load(server);

  it(`has ${count} tools and is detected as MCP`, () => {
    expect(imported.tools).toHaveLength(count);
    expect(detectDialect(value, { path: `${server}.json` })?.dialect.id).toBe('mcp');
  });

  it('reports only the capture fields the corpus added around the result', () => {
    expect(diagnostics.map((d) => ({ code: d.code, pointer: d.pointer }))).toEqual(
      ['/server', '/package', '/capture'].map((pointer) => ({ code: 'UNKNOWN_FIELD', pointer })),
    );
  });

  it('round-trips exactly', () => {
    const files = mcpDialect.export(fragmentOf(imported));
    expect(plain(files[0]?.value)).toStrictEqual(plain(value));
  });

  it('gives canonical entries the published schema accepts', () => {
    const validate = canonicalValidator();
    expect(validate({ toolcap: 1, ...(plain(fragmentOf(imported)) as object) })).toBe(true);
  });

  it('keeps every annotation hint in hints, and lists every effect it implies as derived', () => {
    const source = (value as { tools: Array<{ annotations?: Record<string, unknown> }> }).tools;
    imported.tools.forEach(({ value: t }, i) => {
      const annotations = source[i]?.annotations ?? {};
      expect(t.hints?.readOnly).toBe(annotations['readOnlyHint']);
      expect(t.hints?.destructive).toBe(annotations['destructiveHint']);
      expect(t.hints?.idempotent).toBe(annotations['idempotentHint']);
      expect(t.hints?.openWorld).toBe(annotations['openWorldHint']);
      for (const field of Object.keys(t.effects ?? {})) expect(t.derived).toContain(`effects.${field}`);
    });
  });
});

describe('mcp-reference-servers: what the annotations mean', () => {
  it.each([
    ['filesystem', 'read_text_file', { mode: 'read', sideEffects: 'none', reversible: 'full' }, { idempotent: true }],
    ['filesystem', 'write_file', { mode: 'write', sideEffects: 'filesystem', reversible: 'none', risk: 'high' }, { idempotent: true, retryClass: 'safe' }],
    ['filesystem', 'edit_file', { mode: 'write', reversible: 'none', risk: 'high' }, { idempotent: false }],
    ['filesystem', 'create_directory', { mode: 'write', reversible: 'partial' }, { idempotent: true }],
    ['memory', 'delete_entities', { mode: 'write', reversible: 'none', risk: 'high' }, { idempotent: true }],
    ['memory', 'create_entities', { mode: 'write', sideEffects: 'filesystem', reversible: 'partial' }, { idempotent: false }],
    ['memory', 'read_graph', { mode: 'read', sideEffects: 'none' }, { retryClass: 'safe' }],
    ['git', 'git_reset', { mode: 'write', reversible: 'none', risk: 'high' }, {}],
    ['git', 'git_commit', { mode: 'write', reversible: 'partial' }, { idempotent: false }],
    ['git', 'git_log', { mode: 'read' }, {}],
    ['everything', 'gzip-file-as-resource', { mode: 'write', sideEffects: 'write', reversible: 'partial' }, { idempotent: true }],
    ['everything', 'toggle-simulated-logging', { mode: 'write', sideEffects: 'filesystem' }, {}],
    ['time', 'convert_time', { mode: 'read', sideEffects: 'none' }, {}],
  ])('%s %s', (server, name, effects, execution) => {
    const t = tool(load(server).imported, name);
    expect(t?.effects).toMatchObject(effects);
    expect(t?.execution).toMatchObject(execution);
  });

  it('fetch has no annotations: nothing is claimed, and complete() will read it conservatively', () => {
    const t = tool(load('fetch').imported, 'fetch');
    expect(t).toBeDefined();
    expect(t?.hints).toBeUndefined();
    expect(t?.effects).toBeUndefined();
    expect(t?.derived).toBeUndefined();
  });

  it('keeps titles, output schemas and the execution field', () => {
    const { imported } = load('filesystem');
    const t = tool(imported, 'read_text_file');
    expect(t?.title).toEqual(expect.any(String));
    expect(t?.outputSchema).toMatchObject({ type: 'object' });
    expect(t?.extensions).toEqual({ mcp: { fields: { execution: { taskSupport: 'forbidden' } } } });
    expect(imported.tools.filter((x) => x.value.outputSchema !== undefined)).toHaveLength(14);
  });

  it('reads serverInfo as the bundle', () => {
    expect(load('memory').imported.bundle).toMatchObject({ name: 'memory-server', version: '0.6.3' });
  });
});
