import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Provider, Tool } from '../../../src/model/schema.js';
import { ProviderTypes } from '../../../src/runtime/providers/provider-types.js';
import { ProviderConfigError, type ProviderInstance, type ProviderType } from '../../../src/runtime/providers/types.js';
import { contextFor } from './contract.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/providers/', import.meta.url));
const ENV = { env: {}, baseDir: FIXTURES };
const ATLAS = fileURLToPath(new URL('../../../examples/manifests/atlas/modules/Tools/tool_maps/functions.json', import.meta.url));

/** A custom type whose instances answer their own name. */
function customType(type: string, onCreate?: (entry: Provider) => void): ProviderType {
  return {
    type,
    create(entry): ProviderInstance {
      onCreate?.(entry);
      return { name: entry.name, type, call: async () => ({ from: entry.name }) };
    },
  };
}

describe('ProviderTypes', () => {
  it('registers the built-in types', () => {
    expect(new ProviderTypes().names()).toEqual(['module', 'http', 'command', 'mcp', 'python', 'google_cse', 'serpapi', 'openai', 'internal_http_client']);
    expect(new ProviderTypes({ empty: true }).names()).toEqual([]);
  });

  it('registers custom types and refuses duplicates', () => {
    const types = new ProviderTypes();
    types.register(customType('anthropic'));
    expect(types.has('anthropic')).toBe(true);
    expect(() => types.register(customType('anthropic'))).toThrow(/already registered/);
    expect(() => types.register(customType('http'))).toThrow(/already registered/);
  });

  it.each([
    ['config.type wins', { name: 'google_cse', config: { type: 'http' } }, 'http'],
    ['config.type even when unregistered', { name: 'x', config: { type: 'grpc' } }, 'grpc'],
    ['the name when a type of that name exists', { name: 'mcp', config: { server: 's' } }, 'mcp'],
    ['nothing for an unknown name', { name: 'bing_search' }, undefined],
    ['the ATLAS names are built in', { name: 'serpapi' }, 'serpapi'],
    ['a non-string config.type is ignored', { name: 'command', config: { type: 7, command: 'x' } }, 'command'],
  ] as Array<[string, Provider, string | undefined]>)('typeOf: %s', (_label, entry, expected) => {
    expect(new ProviderTypes().typeOf(entry)).toBe(expected);
  });

  it('orders entries by ascending priority, missing = 0, ties in manifest order', () => {
    const types = new ProviderTypes({ empty: true }).register(customType('t'));
    const providers: Provider[] = [
      { name: 't', priority: 10, config: { id: 'a' } },
      { name: 't', config: { id: 'b' } },
      { name: 't', priority: -5, config: { id: 'c' } },
      { name: 't', priority: 0, config: { id: 'd' } },
      { name: 't', priority: 10, config: { id: 'e' } },
    ];
    const slots = types.instantiate({ name: 'ordered', providers }, ENV);
    expect(slots.map((s) => [s.entry.config?.['id'], s.priority])).toEqual([
      ['c', -5],
      ['b', 0],
      ['d', 0],
      ['a', 10],
      ['e', 10],
    ]);
    expect(slots.every((s) => s.instance !== undefined && s.error === undefined)).toBe(true);
  });

  it('never throws: unknown types, config errors and failing factories come back with error', () => {
    const types = new ProviderTypes();
    types.register({
      type: 'explodes',
      create() {
        throw new Error('kaboom');
      },
    });
    const tool: Tool = {
      name: 'mixed',
      providers: [
        { name: 'bing_search', priority: 1 },
        { name: 'http', priority: 2, config: {} },
        { name: 'explodes', priority: 3 },
        { name: 'mcp', priority: 4, config: { server: 'srv' } },
      ],
    };
    const slots = types.instantiate(tool, ENV);
    expect(slots.map((s) => s.entry.name)).toEqual(['bing_search', 'http', 'explodes', 'mcp']);
    expect(slots[0]?.error).toMatch(/unknown provider type "bing_search".*registered: module, http, command, mcp, python, google_cse, serpapi, openai, internal_http_client, explodes/);
    expect(slots[0]?.instance).toBeUndefined();
    expect(slots[1]?.error).toMatch(/baseUrl/);
    expect(slots[1]?.type).toBe('http');
    expect(slots[2]?.error).toMatch(/kaboom/);
    expect(slots[3]?.instance?.type).toBe('mcp');
    expect(slots[3]?.error).toBeUndefined();
  });

  it('a ProviderConfigError message is the error as is', () => {
    const types = new ProviderTypes({ empty: true }).register({
      type: 'picky',
      create() {
        throw new ProviderConfigError('needs config.key');
      },
    });
    expect(types.instantiate({ name: 'p', providers: [{ name: 'picky' }] }, ENV)[0]?.error).toBe('needs config.key');
  });

  it('falls back to implementation.module when the tool has no providers', async () => {
    const tool: Tool = { name: 'impl', implementation: { module: './echo-module.mjs', export: 'tool' } };
    const slots = new ProviderTypes().instantiate(tool, ENV);
    expect(slots).toHaveLength(1);
    expect(slots[0]).toMatchObject({ entry: { name: 'module' }, priority: 0, type: 'module' });
    await expect(slots[0]?.instance?.call({ a: 1 }, contextFor(undefined, tool))).resolves.toEqual({ via: 'obj', args: { a: 1 } });
  });

  it.each([
    ['no providers and no implementation', { name: 'bare' } as Tool, 0],
    ['an empty providers list and no implementation', { name: 'bare', providers: [] } as Tool, 0],
    [
      'providers present: no implementation fallback',
      { name: 'both', providers: [{ name: 'mcp', config: { server: 's' } }], implementation: { module: './echo-module.mjs' } } as Tool,
      1,
    ],
  ])('slot count: %s', (_label, tool, count) => {
    expect(new ProviderTypes().instantiate(tool, ENV)).toHaveLength(count);
  });

  it('passes the MCP connector to the built-in mcp type', async () => {
    const types = new ProviderTypes({ mcpConnector: { callTool: async (server, tool) => ({ server, tool }) } });
    const [slot] = types.instantiate({ name: 'browser_lookup', providers: [{ name: 'mcp', config: { server: 'browser-server', tool: 'browser.find' } }] }, ENV);
    expect(slot?.instance?.ready?.()).toEqual({ healthy: true });
    await expect(slot?.instance?.call({}, contextFor())).resolves.toEqual({ server: 'browser-server', tool: 'browser.find' });
  });

  it('reads the real ATLAS provider entries', () => {
    const raw = JSON.parse(readFileSync(ATLAS, 'utf8')) as Array<{ name: string; providers?: Array<Record<string, unknown>> }>;
    const types = new ProviderTypes();
    const summary = Object.fromEntries(
      raw
        .filter((t) => Array.isArray(t.providers) && t.providers.length > 0)
        .map((t) => {
          const providers = (t.providers ?? []).map((p) => {
            const entry: Provider = { name: String(p['name']) };
            if (typeof p['priority'] === 'number') entry.priority = p['priority'];
            if (p['config'] && typeof p['config'] === 'object') entry.config = p['config'] as Record<string, unknown>;
            return entry;
          });
          const slots = types.instantiate({ name: t.name, providers }, ENV);
          return [t.name, slots.map((s) => `${s.entry.name}:${s.instance ? s.instance.type : 'error'}`)];
        }),
    );
    expect(summary['google_search']).toEqual(['google_cse:google_cse', 'serpapi:serpapi']);
    expect(summary['webpage_fetch']).toEqual(['internal_http_client:error']);
    expect(summary['browser_lookup']).toEqual(['mcp:mcp', 'openai:openai']);
  });
});
