import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeAll, deferred, expectCode, fakeTool, harness, settle, type Deferred } from './helpers.js';

afterEach(closeAll);

describe('resolve: persona scoping and disabled tools', () => {
  const tools = [
    fakeTool('alpha.only', { scope: { personas: ['alpha'] } }),
    fakeTool('shared.tool'),
    fakeTool('off.tool', { enabled: false }),
  ];

  it('a tool scoped to a persona runs for that persona', async () => {
    const h = await harness(tools);
    const r = await h.runtime.call('alpha.only', { q: 1 }, { persona: 'alpha' });
    expect(r.status).toBe('ok');
    expect(h.fakes.count('alpha.only')).toBe(1);
    expect(h.fakes.calls[0]?.ctx.persona).toBe('alpha');
  });

  it('shared tools run for any persona and for none', async () => {
    const h = await harness(tools);
    for (const persona of ['alpha', 'beta', undefined]) {
      const r = await h.runtime.call('shared.tool', {}, persona === undefined ? {} : { persona });
      expect(r.status).toBe('ok');
    }
    expect(h.fakes.count('shared.tool')).toBe(3);
  });

  it.each([
    ['another persona', 'beta'],
    ['no persona', undefined],
  ] as const)('a tool scoped to persona alpha is TOOL_NOT_FOUND for %s, shaped like a missing tool', async (_label, persona) => {
    const h = await harness(tools);
    const context = persona === undefined ? {} : { persona };
    const hidden = await expectCode(h.runtime.call('alpha.only', {}, context), 'TOOL_NOT_FOUND');
    const missing = await expectCode(h.runtime.call('no.such.tool', {}, context), 'TOOL_NOT_FOUND');
    expect(hidden.status).toBe(404);
    expect(hidden.message.replace('alpha.only', 'X')).toBe(missing.message.replace('no.such.tool', 'X'));
    expect(hidden.extra).toEqual(missing.extra);
    expect(h.fakes.count()).toBe(0);
  });

  it.each([
    ['no persona', undefined, 'p-shared'],
    ['a persona without its own version', 'beta', 'p-shared'],
    ['the persona with its own version', 'Researcher', 'p-scoped'],
  ] as const)('a tool with a shared and a scoped version runs the right version for %s', async (_label, persona, provider) => {
    const h = await harness([
      fakeTool('web.search', { providers: [{ name: 'p-shared', config: { type: 'fake' } }] }),
      fakeTool('web.search', { scope: { personas: ['Researcher'] }, description: 'research quota', providers: [{ name: 'p-scoped', config: { type: 'fake' } }] }),
    ]);
    const r = await h.runtime.call('web.search', {}, persona === undefined ? {} : { persona });
    expect(r).toMatchObject({ status: 'ok', provider });
    expect(h.fakes.order()).toEqual([provider]);
  });

  it.each([
    ['no persona', undefined],
    ['a persona', 'alpha'],
  ] as const)('a disabled tool the caller can see is not callable (%s): TOOL_DISABLED (409), saying so', async (_label, persona) => {
    const h = await harness(tools);
    const context = persona === undefined ? {} : { persona };
    const e = await expectCode(h.runtime.call('off.tool', {}, context), 'TOOL_DISABLED');
    expect(e.status).toBe(409);
    expect(e.message).toBe('Tool "off.tool" is disabled (enabled: false): it is listed for review but cannot be called.');
    expect(() => h.runtime.resolve('off.tool', persona)).toThrow(/is disabled/);
    expect(h.fakes.count()).toBe(0);
  });

  it('a disabled tool scoped to another persona stays TOOL_NOT_FOUND (its existence is not revealed)', async () => {
    const h = await harness([...tools, fakeTool('alpha.off', { scope: { personas: ['alpha'] }, enabled: false })]);
    const hidden = await expectCode(h.runtime.call('alpha.off', {}, { persona: 'beta' }), 'TOOL_NOT_FOUND');
    expect(hidden.status).toBe(404);
    // without a persona the caller sees shared tools only: alpha's disabled one reads as missing too
    await expectCode(h.runtime.call('alpha.off', {}, {}), 'TOOL_NOT_FOUND');
    await expectCode(h.runtime.call('alpha.off', {}, { persona: 'alpha' }), 'TOOL_DISABLED');
  });
});

describe('resolve: the snapshot index agrees with the callable views', () => {
  it('for every persona and name, callable() finds what a scan of callableTools() finds', async () => {
    const h = await harness([
      fakeTool('web.search'),
      fakeTool('web.search', { scope: { personas: ['Researcher'] }, description: 'research quota' }),
      fakeTool('alpha.only', { scope: { personas: ['alpha'] } }),
      fakeTool('off.tool', { enabled: false }),
      fakeTool('off.for.alpha'),
      fakeTool('off.for.alpha', { scope: { personas: ['alpha'] }, enabled: false }),
    ]);
    const snap = h.registry.snapshot();
    const names = ['web.search', 'alpha.only', 'off.tool', 'off.for.alpha', 'no.such.tool'];
    for (const persona of [undefined, 'alpha', 'Researcher', 'nobody']) {
      for (const name of names) expect(snap.callable(name, persona)).toBe(snap.callableTools(persona).find((t) => t.name === name));
    }
    expect(snap.callable('off.for.alpha', 'alpha')).toBeUndefined();
    expect(snap.callable('web.search', 'Researcher')?.description).toBe('research quota');
  });
});

describe('validate: INVALID_ARGUMENTS', () => {
  const schema = {
    type: 'object',
    properties: { path: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
    required: ['path'],
    additionalProperties: false,
  };

  it.each([
    ['missing required', {}, '', [/required property 'path'/]],
    ['wrong type', { path: 5 }, '/path', [/\/path must be string/]],
    ['additional property', { path: 'a', extra: true }, '', [/must NOT have additional properties \(extra\)/]],
    ['below minimum', { path: 'a', count: 0 }, '/count', [/\/count must be >= 1/]],
    ['several problems at once', { count: 'x', other: 1 }, '', [/required property 'path'/, /\(other\)/, /\/count must be integer/]],
  ] as Array<[string, unknown, string, RegExp[]]>)('%s', async (_label, args, pointer, messages) => {
    const h = await harness([fakeTool('files.write', { inputSchema: schema })]);
    const e = await expectCode(h.runtime.call('files.write', args), 'INVALID_ARGUMENTS');
    expect(e.status).toBe(400);
    expect(e.extra.pointer).toBe(pointer);
    const problems = e.extra.problems ?? [];
    expect(problems.length).toBeGreaterThanOrEqual(messages.length);
    for (const m of messages) {
      expect(problems.some((p) => m.test(p.message))).toBe(true);
      expect(e.message).toMatch(m);
    }
    expect(problems[0]?.pointer).toBe(pointer);
    expect(h.fakes.count()).toBe(0);
  });

  it.each([
    ['null', null, 'null'],
    ['an array', [{ path: 'a' }], 'an array'],
    ['a string', '{"path":"a"}', 'string'],
    ['a number', 42, 'number'],
    ['undefined', undefined, 'undefined'],
  ] as Array<[string, unknown, string]>)('non-object arguments (%s) are refused with pointer ""', async (_label, args, word) => {
    const h = await harness([fakeTool('files.write', { inputSchema: schema })]);
    const e = await expectCode(h.runtime.call('files.write', args), 'INVALID_ARGUMENTS');
    expect(e.extra.pointer).toBe('');
    expect(e.message).toContain(`not ${word}`);
    expect(h.fakes.count()).toBe(0);
  });

  it('a caller\'s large array under uniqueItems is checked in linear time: 50,000 objects pass, one repeat is INVALID_ARGUMENTS at the array', async () => {
    // Ajv's own check compared every pair (about 45 s for these arguments, the event loop held throughout)
    const tags = { type: 'object', properties: { tags: { type: 'array', items: { type: 'object' }, uniqueItems: true } } };
    const h = await harness([fakeTool('tags.set', { inputSchema: tags })]);
    const items = Array.from({ length: 50_000 }, (_, i) => ({ key: `k${i}`, value: i }));
    expect((await h.runtime.call('tags.set', { tags: items })).status).toBe('ok');
    const e = await expectCode(h.runtime.call('tags.set', { tags: [...items, { value: 7, key: 'k7' }] }), 'INVALID_ARGUMENTS');
    expect(e.extra.pointer).toBe('/tags');
    expect(e.message).toContain('/tags must NOT have duplicate items (items ## 7 and 50000 are identical)');
    expect(h.fakes.count()).toBe(1);
  });

  it('a caller\'s string under a catastrophic pattern is checked in linear time: INVALID_ARGUMENTS at the string', async () => {
    // on V8's backtracking engine ^(a+)+$ doubles with each letter: 28 took 1.3 s, these 40 would take hours
    const named = { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } };
    const h = await harness([fakeTool('names.set', { inputSchema: named })]);
    const e = await expectCode(h.runtime.call('names.set', { name: `${'a'.repeat(40)}!` }), 'INVALID_ARGUMENTS');
    expect(e.extra.pointer).toBe('/name');
    expect(e.message).toContain('/name must match pattern "^(a+)+$"');
    expect((await h.runtime.call('names.set', { name: 'a'.repeat(40) })).status).toBe('ok');
    expect(h.fakes.count()).toBe(1);
  });

  it('valid arguments reach the provider unchanged', async () => {
    const h = await harness([fakeTool('files.write', { inputSchema: schema })]);
    const args = { path: 'a/b.txt', count: 3 };
    const r = await h.runtime.call('files.write', args);
    expect(r.status).toBe('ok');
    expect(h.fakes.calls[0]?.args).toEqual(args);
  });

  const draft07 = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://example.com/schemas/search.json',
    type: 'object',
    definitions: { query: { type: 'string', minLength: 1 } },
    properties: { q: { $ref: '#/definitions/query' }, limit: { type: 'integer' } },
    required: ['q'],
    additionalProperties: false,
  };

  it.each([
    ['valid', { q: 'cats', limit: 3 }, undefined],
    ['a $ref-ed definition fails', { q: '' }, '/q'],
    ['missing required', { limit: 3 }, ''],
  ] as Array<[string, unknown, string | undefined]>)('a draft-07 $schema input schema still validates: %s', async (_label, args, pointer) => {
    const h = await harness([fakeTool('web.search', { inputSchema: draft07 })]);
    if (pointer === undefined) {
      const r = await h.runtime.call('web.search', args);
      expect(r.status).toBe('ok');
      expect(h.fakes.count()).toBe(1);
    } else {
      const e = await expectCode(h.runtime.call('web.search', args), 'INVALID_ARGUMENTS');
      expect(e.extra.pointer).toBe(pointer);
      expect(h.fakes.count()).toBe(0);
    }
  });

  it('a schema that does not compile refuses the call (INVALID_TOOL_SCHEMA), the provider never runs', async () => {
    const h = await harness([fakeTool('broken.schema', { inputSchema: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } } })]);
    const e = await expectCode(h.runtime.call('broken.schema', { a: 1 }), 'INVALID_TOOL_SCHEMA');
    expect(e.status).toBe(500);
    expect(h.fakes.count()).toBe(0);
  });
});

describe('concurrency', () => {
  /** Two calls of one tool whose provider holds each call on a deferred until released. */
  async function twoCalls(allowParallel: boolean) {
    const h = await harness([fakeTool('slow.tool', { execution: { timeoutSec: 30, retryClass: 'never', allowParallel } })]);
    const log: string[] = [];
    const gates: Deferred[] = [];
    h.fakes.on('p1', async (args) => {
      const gate = deferred();
      gates.push(gate);
      log.push(`start ${String(args['n'])}`);
      const value = await gate.promise;
      log.push(`end ${String(args['n'])}`);
      return value;
    });
    const first = h.runtime.call('slow.tool', { n: 1 });
    const second = h.runtime.call('slow.tool', { n: 2 });
    return { h, log, gates, first, second };
  }

  it('allowParallel: false runs the second call only after the first finishes', async () => {
    const { log, gates, first, second } = await twoCalls(false);
    await vi.waitFor(() => expect(log).toEqual(['start 1']));
    await settle(20);
    expect(log).toEqual(['start 1']); // the second waits for the first
    gates[0]!.resolve('one');
    await expect(first).resolves.toMatchObject({ status: 'ok', result: 'one' });
    await vi.waitFor(() => expect(log).toEqual(['start 1', 'end 1', 'start 2']));
    gates[1]!.resolve('two');
    await expect(second).resolves.toMatchObject({ status: 'ok', result: 'two' });
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('allowParallel: false keeps serialising after a failed call', async () => {
    const { log, gates, first, second } = await twoCalls(false);
    await vi.waitFor(() => expect(log).toEqual(['start 1']));
    gates[0]!.reject(new Error('boom'));
    await expectCode(first, 'PROVIDER_ERROR');
    // the provider is backing off after the failure: the queued call is refused, not run concurrently
    const e = await expectCode(second, 'NO_HEALTHY_PROVIDER');
    expect(e.extra.retryAfterMs).toBeGreaterThan(0);
    expect(log).toEqual(['start 1']);
  });

  it('allowParallel: true runs both calls at once', async () => {
    const { log, gates, first, second } = await twoCalls(true);
    await vi.waitFor(() => expect(log).toEqual(['start 1', 'start 2']));
    gates[1]!.resolve('two');
    await expect(second).resolves.toMatchObject({ status: 'ok', result: 'two' });
    gates[0]!.resolve('one');
    await expect(first).resolves.toMatchObject({ status: 'ok', result: 'one' });
    expect(log).toEqual(['start 1', 'start 2', 'end 2', 'end 1']);
  });

  it('serialising one tool does not hold up another tool', async () => {
    const h = await harness([
      fakeTool('serial.a', { execution: { timeoutSec: 30, retryClass: 'never', allowParallel: false } }),
      fakeTool('serial.b', { execution: { timeoutSec: 30, retryClass: 'never', allowParallel: false } }),
    ]);
    const gate = deferred();
    h.fakes.on('serial.a/p1', () => gate.promise);
    const a = h.runtime.call('serial.a', {});
    await vi.waitFor(() => expect(h.fakes.count('serial.a')).toBe(1));
    await expect(h.runtime.call('serial.b', {})).resolves.toMatchObject({ status: 'ok' });
    gate.resolve('a');
    await expect(a).resolves.toMatchObject({ result: 'a' });
  });
});
