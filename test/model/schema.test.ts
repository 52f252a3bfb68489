import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { complete, declared } from '../../src/model/derive.js';
import { canonicalJsonSchema, type Tool } from '../../src/model/schema.js';
import { canonicalValidator } from '../../src/model/validator.js';
import { mostRestrictive, rank, RISK_LEVELS, SIDE_EFFECTS, type RiskLevel, type SideEffect } from '../../src/model/vocabulary.js';

describe('the published JSON Schema', () => {
  it('is the file generated from the TypeBox source (run `npm run schema` after changing the model)', () => {
    const shipped = JSON.parse(readFileSync('schema/toolcap.schema.json', 'utf8')) as unknown;
    expect(shipped).toEqual(canonicalJsonSchema());
  });

  it('has a home for every canonical field the issue fixes', () => {
    const tool = (canonicalJsonSchema() as { properties: { tools: { items: { properties: Record<string, { properties?: Record<string, unknown> }> } } } }).properties.tools.items.properties;
    const fixed = {
      effects: ['mode', 'sideEffects', 'reversible', 'rollbackHint', 'deterministic', 'risk'],
      approval: ['required', 'consent'],
      auth: ['required', 'type', 'scopes', 'envs', 'oauth', 'docs'],
      cost: ['lane', 'estimatedDollars'],
      latency: ['p50Ms', 'p95Ms'],
      execution: ['timeoutSec', 'allowParallel', 'idempotent', 'retryClass', 'idempotencyKey'],
      surface: ['domains', 'entities', 'operations', 'taskRoles', 'authority', 'freshnessSlaSec'],
      observability: ['traceAttrs'],
      implementation: ['module', 'export'],
    };
    for (const top of ['name', 'version', 'title', 'description', 'enabled', 'tags', 'scope', 'inputSchema', 'outputSchema', 'configSchema', 'capabilities', 'permissions', 'alternatives', 'providers']) {
      expect(tool).toHaveProperty(top);
    }
    for (const [group, fields] of Object.entries(fixed)) expect(Object.keys(tool[group]?.properties ?? {})).toEqual(expect.arrayContaining(fields));
  });

  it.each([
    [{ toolcap: 1, tools: [{ name: 'a.b', effects: { sideEffects: 'write', risk: 'high' } }] }, true],
    [{ toolcap: 1, tools: [{ name: 'A B' }] }, false],
    [{ toolcap: 1, tools: [{ name: 'a', effects: { risk: 'extreme' } }] }, false],
    [{ toolcap: 1, tools: [{ name: 'a', surface: { authority: 1.5 } }] }, false],
    [{ toolcap: 2 }, false],
  ])('validates %j -> %s', (doc, ok) => {
    expect(canonicalValidator()(doc)).toBe(ok);
  });
});

describe('types derived from the schema', () => {
  it('infers the canonical tool type', () => {
    expectTypeOf<Tool['name']>().toEqualTypeOf<string>();
    expectTypeOf<NonNullable<Tool['effects']>['sideEffects']>().toEqualTypeOf<SideEffect | undefined>();
    expectTypeOf<NonNullable<Tool['effects']>['risk']>().toEqualTypeOf<RiskLevel | undefined>();
    expectTypeOf<NonNullable<Tool['execution']>['idempotencyKey']>().toEqualTypeOf<string | boolean | undefined>();
    expectTypeOf<NonNullable<Tool['providers']>[number]['priority']>().toEqualTypeOf<number | undefined>();
    expectTypeOf(complete).returns.toEqualTypeOf<Tool>();
  });
});

describe('severity orders, defined once', () => {
  it.each<[SideEffect, SideEffect, SideEffect]>([
    ['none', 'write', 'write'],
    ['system', 'network', 'system'],
    ['read_external_service', 'compute', 'read_external_service'],
  ])('most restrictive of %s and %s is %s', (a, b, expected) => {
    expect(mostRestrictive(SIDE_EFFECTS, a, b)).toBe(expected);
  });
  it('orders risk low < medium < high < critical', () => {
    expect(RISK_LEVELS.map((r) => rank(RISK_LEVELS, r))).toEqual([0, 1, 2, 3]);
  });
});

describe('derive', () => {
  it('declared() undoes complete() exactly', () => {
    const tool: Tool = { name: 'a', effects: { sideEffects: 'none' }, execution: { timeoutSec: 3 } };
    expect(declared(complete(tool))).toEqual(tool);
  });
  it.each<[Tool, Partial<Record<string, unknown>>]>([
    [{ name: 'silent' }, { mode: 'write', sideEffects: 'write', reversible: 'none', risk: 'high', approval: true, retry: 'never' }],
    [{ name: 'r', effects: { mode: 'read' } }, { mode: 'read', sideEffects: 'read_external_service', reversible: 'full', risk: 'low', approval: false, retry: 'safe' }],
    [{ name: 'ext', effects: { external: false } }, { mode: 'read', sideEffects: 'none', risk: 'low' }],
    [{ name: 'key', execution: { idempotencyKey: true } }, { retry: 'guarded' }],
  ])('complete(%j)', (tool, expected) => {
    const t = complete(tool);
    const got = { mode: t.effects?.mode, sideEffects: t.effects?.sideEffects, reversible: t.effects?.reversible, risk: t.effects?.risk, approval: t.approval?.required, retry: t.execution?.retryClass };
    expect(got).toMatchObject(expected);
  });
});
