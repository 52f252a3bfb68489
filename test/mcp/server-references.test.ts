/**
 * Environment references in MCP server settings: the config reader keeps
 * `{ env: NAME }` as `${NAME}`, and the connection resolves them from the
 * environment, refusing (with every missing name) rather than sending an
 * empty secret.
 */
import { describe, expect, it } from 'vitest';
import { resolveServerReferences, serverReferences, MissingServerSettings } from '../../src/mcp/server-references.js';
import { configLoader } from '../config/helpers.js';

const load = configLoader('toolcap-mcp-refs-');
const base = { name: 's', args: [] as string[], env: {} as Record<string, string>, headers: {} as Record<string, string> };

describe('MCP server environment references', () => {
  it.each<[string, Partial<typeof base> & { url?: string }, Record<string, string>, unknown]>([
    ['header template', { headers: { Authorization: 'Bearer ${TOKEN}' } }, { TOKEN: 't1' }, { headers: { Authorization: 'Bearer t1' } }],
    ['env and args', { env: { KEY: '${KEY}' }, args: ['--dir', '${DIR}'] }, { KEY: 'k', DIR: '/d' }, { env: { KEY: 'k' }, args: ['--dir', '/d'] }],
    ['url', { url: 'https://${HOST}/mcp' }, { HOST: 'h.example' }, { url: 'https://h.example/mcp' }],
    ['an empty value counts as set', { env: { A: '${A}' } }, { A: '' }, { env: { A: '' } }],
    ['no references: unchanged', { env: { A: 'plain $ text' } }, {}, { env: { A: 'plain $ text' } }],
  ])('%s', (_label, cfg, env, expected) => {
    expect(resolveServerReferences({ ...base, ...cfg }, env)).toMatchObject(expected as object);
  });

  it('names every unset variable, in order of use, and resolves nothing', () => {
    const cfg = { ...base, args: ['${B}'], env: { X: '${A}' }, headers: { H: '${B} ${C}' } };
    expect(serverReferences(cfg)).toEqual(['B', 'A', 'C']);
    expect(() => resolveServerReferences(cfg, { A: 'a' })).toThrow(MissingServerSettings);
    expect(() => resolveServerReferences(cfg, { A: 'a' })).toThrow('set B, C in the environment toolcap runs in (the config of MCP server "s" refers to them');
  });

  it('the config reads { env: NAME } in env and headers as ${NAME}, and transport: sse', () => {
    const { config, diagnostics } = load('mcp:\n  servers:\n    a:\n      url: https://x.example/sse\n      transport: sse\n      headers: { Authorization: { env: TOKEN } }\n    b:\n      command: node\n      env: { KEY: { env: KEY }, PLAIN: v }\n');
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(config!.mcp.servers.map((s) => [s.name, s.transport, s.headers, s.env])).toEqual([
      ['a', 'sse', { Authorization: '${TOKEN}' }, {}],
      ['b', 'stdio', {}, { KEY: '${KEY}', PLAIN: 'v' }],
    ]);
  });

  it.each([
    ['a reference with another key', '      env: { KEY: { env: KEY, value: x } }\n', 'UNKNOWN_FIELD'],
    ['a reference to a bad name', '      env: { KEY: { env: "1 bad" } }\n', 'INVALID_VALUE'],
    ['transport without url', '      transport: sse\n', 'INVALID_VALUE'],
  ])('%s is a located finding', (_label, extra, code) => {
    const { diagnostics } = load(`mcp:\n  servers:\n    b:\n      command: node\n${extra}`);
    expect(diagnostics.map((d) => [d.code, d.line])).toContainEqual([code, 6]); // line 1 is the loader's sources
  });
});
