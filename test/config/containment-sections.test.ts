/**
 * The containment parts of a config: `egress` (the hosts http providers may
 * reach, cross-origin redirects) and `runtime` (trusted module folders,
 * module isolation, the response size limit). Every bad field is reported at
 * its line and pointer, egress entries are judged by the EgressGuard's own
 * parser, the JSON Schema agrees, and the sections become the registry's
 * catalog options and the runtime's provider environment.
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configCatalogOptions, configJsonSchema, DEFAULT_RUNTIME, loadConfig, providerEnvironment } from '../../src/config/config.js';
import { createAjv } from '../../src/model/validator.js';
import { EgressGuard } from '../../src/runtime/containment/egress.js';

function project(text: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolcap-containment-config-')));
  for (const d of ['m', 'shared-tools', 'more-tools']) mkdirSync(join(dir, d));
  writeFileSync(join(dir, 'm', 'tools.yaml'), 'toolcap: 1\ntools: []\n');
  writeFileSync(join(dir, 'a-file.mjs'), 'export default () => 1;\n');
  const path = join(dir, 'toolcap.config.yaml');
  writeFileSync(path, text);
  return path;
}

const S = 'sources: [m]\n';
const CASES: Array<[string, string, Array<{ code: string; line: number; pointer: string }>]> = [
  ['egress not an object', `${S}egress: [a.example]\n`, [{ code: 'TYPE_MISMATCH', line: 2, pointer: '/egress' }]],
  ['egress without allow', `${S}egress:\n  crossOriginRedirects: refuse\n`, [{ code: 'MISSING_FIELD', line: 3, pointer: '/egress' }]],
  ['allow not a list', `${S}egress:\n  allow: a.example\n`, [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/egress/allow' }]],
  ['an allow entry that is a number', `${S}egress:\n  allow: [a.example, 5]\n`, [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/egress/allow/1' }]],
  ['an allow entry with a scheme', `${S}egress:\n  allow:\n    - https://a.example\n`, [{ code: 'INVALID_VALUE', line: 4, pointer: '/egress/allow/0' }]],
  ['an allow entry with a port', `${S}egress:\n  allow:\n    - a.example:443\n`, [{ code: 'INVALID_VALUE', line: 4, pointer: '/egress/allow/0' }]],
  ['an allow entry with a space', `${S}egress:\n  allow:\n    - "a .example"\n`, [{ code: 'INVALID_VALUE', line: 4, pointer: '/egress/allow/0' }]],
  ['an empty allow entry', `${S}egress:\n  allow: [""]\n`, [{ code: 'INVALID_VALUE', line: 3, pointer: '/egress/allow/0' }]],
  ['a CIDR prefix too long', `${S}egress:\n  allow:\n    - a.example\n    - 10.0.0.0/33\n`, [{ code: 'INVALID_VALUE', line: 5, pointer: '/egress/allow/1' }]],
  ['a CIDR of a name', `${S}egress:\n  allow: [a.example/8]\n`, [{ code: 'INVALID_VALUE', line: 3, pointer: '/egress/allow/0' }]],
  ['a redirect rule that is not one', `${S}egress:\n  allow: []\n  crossOriginRedirects: follow\n`, [{ code: 'UNKNOWN_ENUM_VALUE', line: 4, pointer: '/egress/crossOriginRedirects' }]],
  ['an unknown egress field (warning)', `${S}egress:\n  allow: []\n  deny: [x]\n`, [{ code: 'UNKNOWN_FIELD', line: 4, pointer: '/egress/deny' }]],
  ['runtime not an object', `${S}runtime: worker\n`, [{ code: 'TYPE_MISMATCH', line: 2, pointer: '/runtime' }]],
  ['trustedModuleDirs not a list', `${S}runtime:\n  trustedModuleDirs: shared-tools\n`, [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/runtime/trustedModuleDirs' }]],
  ['a trusted folder that is a number', `${S}runtime:\n  trustedModuleDirs: [shared-tools, 3]\n`, [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/runtime/trustedModuleDirs/1' }]],
  ['a trusted folder that does not exist', `${S}runtime:\n  trustedModuleDirs:\n    - shared-tools\n    - gone\n`, [{ code: 'PATH_NOT_FOUND', line: 5, pointer: '/runtime/trustedModuleDirs/1' }]],
  ['a trusted folder that is a file', `${S}runtime:\n  trustedModuleDirs: [a-file.mjs]\n`, [{ code: 'INVALID_VALUE', line: 3, pointer: '/runtime/trustedModuleDirs/0' }]],
  ['an empty trusted folder', `${S}runtime:\n  trustedModuleDirs: [""]\n`, [{ code: 'INVALID_VALUE', line: 3, pointer: '/runtime/trustedModuleDirs/0' }]],
  ['an isolation that is not one', `${S}runtime:\n  moduleIsolation: process\n`, [{ code: 'UNKNOWN_ENUM_VALUE', line: 3, pointer: '/runtime/moduleIsolation' }]],
  ['a response limit of 0', `${S}runtime:\n  maxResponseBytes: 0\n`, [{ code: 'INVALID_VALUE', line: 3, pointer: '/runtime/maxResponseBytes' }]],
  ['a response limit that is a fraction', `${S}runtime:\n  maxResponseBytes: 1.5\n`, [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/runtime/maxResponseBytes' }]],
  ['a response limit written as text', `${S}runtime:\n  maxResponseBytes: 10MiB\n`, [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/runtime/maxResponseBytes' }]],
  ['a result policy that is neither warn nor fail', `${S}runtime:\n  results: ignore\n`, [{ code: 'UNKNOWN_ENUM_VALUE', line: 3, pointer: '/runtime/results' }]],
  ['an MCP answer limit of 0', `${S}mcp:\n  maxResponseBytes: 0\n`, [{ code: 'INVALID_VALUE', line: 3, pointer: '/mcp/maxResponseBytes' }]],
  ['an MCP answer limit that is a fraction', `${S}mcp:\n  maxResponseBytes: 1.5\n`, [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/mcp/maxResponseBytes' }]],
  ['an MCP answer limit written as text', `${S}mcp:\n  maxResponseBytes: 10MiB\n`, [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/mcp/maxResponseBytes' }]],
  ['an unknown runtime field (warning)', `${S}runtime:\n  sandbox: true\n`, [{ code: 'UNKNOWN_FIELD', line: 3, pointer: '/runtime/sandbox' }]],
];

const codes = (path: string) => loadConfig(path).diagnostics.map((d) => ({ code: d.code, line: d.line, pointer: d.pointer }));

describe('the containment sections: every bad field at its line', () => {
  it.each(CASES)('%s', (_name, text, expected) => {
    expect(codes(project(text))).toEqual(expected);
  });

  it.each(['api.example.com', '*.example.com', '*', '203.0.113.7', '::1', '[::1]', '10.0.0.0/8', 'fd00::/8', 'metadata.google.internal', '169.254.169.254'])(
    'accepts the allow entry %s, as the egress guard does',
    (entry) => {
      expect(codes(project(`${S}egress:\n  allow: [${JSON.stringify(entry)}]\n`))).toEqual([]);
      expect(() => new EgressGuard({ allow: [entry] })).not.toThrow();
    },
  );
});

describe('configJsonSchema agrees on the containment sections', () => {
  const validate = createAjv().compile(configJsonSchema());
  /** Only the loader can judge these: they depend on the file system or on the egress guard's parser. */
  const LOADER_ONLY = new Set([
    'a trusted folder that does not exist',
    'a trusted folder that is a file',
    'a CIDR prefix too long',
    'a CIDR of a name',
    'an allow entry with a port',
  ]);
  it.each(CASES.filter(([name]) => !LOADER_ONLY.has(name)))('rejects: %s', (_name, text) => {
    expect(validate(parse(text))).toBe(false);
  });
  it('accepts every field', () => {
    expect(validate(parse(FULL))).toBe(true);
  });
});

const FULL = `${S}egress:
  allow: [api.example.com, "*.example.org", 10.0.0.0/8, 169.254.169.254]
  crossOriginRedirects: refuse
runtime:
  trustedModuleDirs: [shared-tools, more-tools/]
  moduleIsolation: inline
  maxResponseBytes: 1048576
  results: fail
`;

describe('the containment sections, read', () => {
  it('without them: no egress policy (each provider its own hosts), worker isolation, 10 MiB, no trusted folders', () => {
    const { config, diagnostics } = loadConfig(project(S));
    expect(diagnostics).toEqual([]);
    expect(config?.egress).toBeUndefined();
    expect(config?.runtime).toEqual({ trustedModuleDirs: [], moduleIsolation: 'worker', maxResponseBytes: 10 * 1024 * 1024, results: 'warn' });
    expect(DEFAULT_RUNTIME).toEqual(config?.runtime);
    expect(providerEnvironment(config!)).toEqual({ maxResponseBytes: 10 * 1024 * 1024, trustedModuleDirs: [], moduleIsolation: 'worker' });
    expect(configCatalogOptions(config!)).toEqual({ limits: config!.limits, trustedModuleDirs: [], pythonImports: expect.any(Function) });
  });

  it('reads every field, trusted folders made absolute from the config folder', () => {
    const { config, diagnostics } = loadConfig(project(FULL));
    expect(diagnostics).toEqual([]);
    const trusted = [join(config!.root, 'shared-tools'), join(config!.root, 'more-tools')];
    expect(config?.egress).toEqual({ allow: ['api.example.com', '*.example.org', '10.0.0.0/8', '169.254.169.254'], crossOriginRedirects: 'refuse' });
    expect(config?.runtime).toEqual({ trustedModuleDirs: trusted, moduleIsolation: 'inline', maxResponseBytes: 1048576, results: 'fail' });
    expect(providerEnvironment(config!)).toEqual({
      egress: { allow: ['api.example.com', '*.example.org', '10.0.0.0/8', '169.254.169.254'], crossOriginRedirects: 'refuse' },
      maxResponseBytes: 1048576,
      trustedModuleDirs: trusted,
      moduleIsolation: 'inline',
    });
    expect(configCatalogOptions(config!)).toEqual({ limits: config!.limits, trustedModuleDirs: trusted, pythonImports: expect.any(Function) });
  });

  it('an egress section without crossOriginRedirects leaves the provider default (drop credentials)', () => {
    const { config } = loadConfig(project(`${S}egress:\n  allow: []\n`));
    expect(providerEnvironment(config!).egress).toEqual({ allow: [] });
  });
});

describe('mcp.maxResponseBytes: the upstream MCP answer limit', () => {
  it('reaches the MCP clients\' config when given, and is absent (the 10 MiB default) when not', () => {
    const given = loadConfig(project(`${S}mcp:\n  maxResponseBytes: 1048576\n  servers:\n    docs: { url: "https://mcp.example.com/mcp" }\n`));
    expect(given.diagnostics).toEqual([]);
    expect(given.config?.mcp.maxResponseBytes).toBe(1048576);
    expect(createAjv().compile(configJsonSchema())(parse(`${S}mcp:\n  maxResponseBytes: 1048576\n`))).toBe(true);
    expect(loadConfig(project(`${S}mcp:\n  servers:\n    docs: { url: "https://mcp.example.com/mcp" }\n`)).config?.mcp.maxResponseBytes).toBeUndefined();
  });
});

describe('runtime.providerBaseUrls: an operator base URL per provider type', () => {
  it('reaches the provider environment, and a relative URL is refused at its line', () => {
    const { config, diagnostics } = loadConfig(project(`${S}runtime:\n  providerBaseUrls: { google_cse: "http://127.0.0.1:8080", serpapi: "https://serp-proxy.internal" }\n`));
    expect(diagnostics).toEqual([]);
    expect(providerEnvironment(config!).baseUrls).toEqual({ google_cse: 'http://127.0.0.1:8080', serpapi: 'https://serp-proxy.internal' });
    const bad = loadConfig(project(`${S}runtime:\n  providerBaseUrls:\n    google_cse: localhost:8080\n`));
    expect(bad.diagnostics.map((d) => ({ code: d.code, line: d.line, pointer: d.pointer }))).toEqual([{ code: 'INVALID_VALUE', line: 4, pointer: '/runtime/providerBaseUrls/google_cse' }]);
  });
});
