/**
 * The pieces of probes, table-driven: the mapping path syntax, the
 * observation check and freshness, MCP result unwrapping, adapter choice,
 * and the probe-file provider's reading and containment.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/model/schema.js';
import { ProbeAdapters } from '../../../src/runtime/probes/adapters.js';
import { probeFileProvider } from '../../../src/runtime/probes/file-provider.js';
import { mapItems, probeSpecOf, resultData } from '../../../src/runtime/probes/mapping.js';
import { checkObservation, checkObservations } from '../../../src/runtime/probes/observations.js';
import { parsePath, ProbePathError, readPath } from '../../../src/runtime/probes/path.js';
import { ProviderConfigError } from '../../../src/runtime/providers/types.js';

const doc = { a: { 'b.c': [10, { d: 'deep' }] }, list: [1, 2, 3] };

describe('probe paths', () => {
  it.each([
    ['$', doc],
    ['', doc],
    ['a', doc.a],
    ['$.a["b.c"][1].d', 'deep'],
    ["a['b.c'][0]", 10],
    ['list[-1]', 3],
    ['list[5]', undefined],
    ['$.missing.x', undefined],
    ['a.__proto__', undefined],
    ['list.length', undefined],
  ])('%j reads %j', (path, expected) => {
    expect(readPath(doc, parsePath(path))).toEqual(expected);
  });

  it.each([
    ['$.', 2],
    ['$.a[', 3],
    ['$.a[x]', 4],
    ['$..a', 2],
    ['a b', 1],
    ['[0]', 0],
  ])('%j is refused at offset %i', (path, offset) => {
    expect(() => parsePath(path)).toThrow(ProbePathError);
    try {
      parsePath(path);
    } catch (error) {
      expect((error as ProbePathError).offset).toBe(offset);
    }
  });
});

describe('observations', () => {
  const good = { taskId: 'T-1', title: 'Do it', state: 'open', updatedAt: '2025-01-02T03:04:05+02:00' };
  it.each([
    [good, true, undefined],
    [{ ...good, taskId: 12 }, true, undefined],
    [{ ...good, updatedAt: 1_700_000_000 }, true, undefined],
    [{ ...good, updatedAt: 1_700_000_000_000 }, true, undefined],
    [{ ...good, url: null, assignee: null }, true, undefined],
    ['text', false, undefined],
    [{ ...good, taskId: '' }, false, 'taskId'],
    [{ ...good, title: 3 }, false, 'title'],
    [{ ...good, state: undefined }, false, 'state'],
    [{ ...good, updatedAt: 'yesterday' }, false, 'updatedAt'],
    [{ ...good, updatedAt: '2025-13-45T00:00:00Z' }, false, 'updatedAt'],
    [{ ...good, url: 'file:///etc/passwd' }, false, 'url'],
    [{ ...good, assignee: { name: 'x' } }, false, 'assignee'],
  ])('%j -> ok %s (field %s)', (item, ok, field) => {
    const r = checkObservation(item);
    expect(r.ok).toBe(ok);
    if (!r.ok) expect(r.field).toBe(field);
  });

  it('normalizes times to UTC and drops unknown fields', () => {
    expect(checkObservation({ ...good, extra: 'x' })).toEqual({ ok: true, value: { ...good, updatedAt: '2025-01-02T01:04:05.000Z' } });
    expect(checkObservation({ ...good, updatedAt: 1_700_000_000 })).toMatchObject({ value: { updatedAt: '2023-11-14T22:13:20.000Z' } });
  });

  it('is stale past the SLA, never without one; newest first', () => {
    const at = Date.parse('2025-01-01T00:10:00Z');
    const items = [{ ...good, taskId: 'old', updatedAt: '2025-01-01T00:00:00Z' }, { ...good, taskId: 'new', updatedAt: '2025-01-01T00:09:00Z' }];
    const timed = checkObservations(items, 120, at).observations;
    expect(timed.map((o) => [o.taskId, o.ageSec, o.stale])).toEqual([['new', 60, false], ['old', 600, true]]);
    expect(checkObservations(items, undefined, at).observations.every((o) => !o.stale)).toBe(true);
    expect(checkObservations(items, 60, at).observations[0]?.stale).toBe(false); // exactly the SLA is fresh
  });
});

const tool = (metadata: Record<string, unknown>, extra: Partial<Tool> = {}): Tool => ({ name: 't.x', metadata, ...extra }) as Tool;

describe('mapping and adapter choice', () => {
  it('unwraps MCP results: structuredContent, else one JSON text', () => {
    expect(resultData({ callId: 'c', provider: 'mcp', providerType: 'mcp', result: { content: [], structuredContent: { issues: [] } } })).toEqual({ issues: [] });
    expect(resultData({ callId: 'c', provider: 'mcp', providerType: 'mcp', result: { content: [{ type: 'text', text: '[1]' }] } })).toEqual([1]);
    expect(() => resultData({ callId: 'c', provider: 'mcp', providerType: 'mcp', result: { content: [{ type: 'text', text: 'hello' }] } })).toThrow(/not JSON/);
    expect(resultData({ callId: 'c', provider: 'api', providerType: 'http', result: { content: [] } })).toEqual({ content: [] });
  });

  it('maps items by the spec; a path that finds no list is an error', () => {
    const spec = probeSpecOf(tool({ probe: { items: '$.rows', taskId: 'id', title: 'fields.summary' } }));
    expect(mapItems({ rows: [{ id: 1, fields: { summary: 'S' }, state: 'open' }, 'x'] }, spec)).toEqual([{ taskId: 1, title: 'S', state: 'open' }, 'x']);
    expect(mapItems({ rows: { id: 2 } }, spec)).toEqual([{ taskId: 2 }]);
    expect(() => mapItems({ rows: 3 }, spec)).toThrow(/items finds a number/);
    expect(() => probeSpecOf(tool({ probe: { title: 5 } }))).toThrow(/metadata.probe.title must be a path string/);
  });

  it.each([
    [{}, undefined],
    [{ probe: {} }, 'mapping'],
    [{ probe: { file: 'x.jsonl' } }, 'file'],
    [{ probe: { adapter: 'file' } }, 'file'],
    [{ probeAdapter: 'linearAssigned' }, undefined],
  ])('metadata %j -> adapter %s', (metadata, name) => {
    const choice = new ProbeAdapters().adapterFor(tool(metadata));
    expect('adapter' in choice ? choice.adapter.name : undefined).toBe(name);
  });

  it('refuses a second adapter of one name', () => {
    expect(() => new ProbeAdapters().register({ name: 'file', probe: async () => [] })).toThrow(/already registered/);
  });
});

describe('probe-file provider', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolcap-probe-file-'));
  const base = join(root, 'manifest');
  mkdirSync(base);
  writeFileSync(join(root, 'secret.json'), '{"taskId":"S"}');
  writeFileSync(join(base, 'tasks.json'), '{"items":[{"taskId":"1"}]}');
  writeFileSync(join(base, 'lines.jsonl'), '{"a":1}\nnot json\n');
  symlinkSync(join(root, 'secret.json'), join(base, 'link.json'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const env = { env: {}, baseDir: base };
  const ctx = () => ({ signal: new AbortController().signal, callId: 'c', attempt: 1, tool: tool({}) });

  it.each(['../secret.json', join(root, 'secret.json')])('refuses %s outside the manifest folder', (file) => {
    expect(() => probeFileProvider(tool({}), file, env)).toThrow(ProviderConfigError);
  });

  it('reads a JSON document, and refuses a symbolic link out of the folder', async () => {
    await expect(probeFileProvider(tool({}), 'tasks.json', env).call({}, ctx())).resolves.toEqual({ items: [{ taskId: '1' }] });
    await expect(probeFileProvider(tool({}), 'link.json', env).call({}, ctx())).rejects.toMatchObject({ code: 'PROVIDER_UNAVAILABLE', message: expect.stringMatching(/symbolic link/) });
  });

  it('names the line of bad JSONL, and keeps to the size limit', async () => {
    await expect(probeFileProvider(tool({}), 'lines.jsonl', env).call({}, ctx())).rejects.toMatchObject({ code: 'BAD_RESPONSE', message: expect.stringMatching(/^lines\.jsonl:2: not JSON/) });
    await expect(probeFileProvider(tool({}), 'tasks.json', { ...env, maxResponseBytes: 5 }).call({}, ctx())).rejects.toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
    expect(probeFileProvider(tool({}), 'missing.jsonl', env).ready?.()).toMatchObject({ healthy: false });
  });
});
