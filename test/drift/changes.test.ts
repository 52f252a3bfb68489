import { describe, expect, it } from 'vitest';
import type { Tool } from '../../src/model/schema.js';
import { diffTool } from '../../src/drift/diff.js';

/** Every classified field declared, so one edit changes exactly one field. */
const BASE: Tool = {
  name: 'x.tool',
  version: '1.0.0',
  description: 'A tool',
  effects: { mode: 'read', sideEffects: 'read_external_service', reversible: 'full', risk: 'low', deterministic: true },
  approval: { required: true, consent: true },
  execution: { timeoutSec: 10, allowParallel: false, idempotent: true, retryClass: 'never' },
  auth: { required: true, type: 'oauth2', scopes: ['repo'] },
  permissions: ['read_repo'],
  providers: [{ name: 'primary', priority: 0 }],
};

const ABSENT = Symbol('absent');

/** A copy of `tool` with the field at a dot path set, or removed. */
function withField(tool: Tool, path: string, value: unknown): Tool {
  const out: Record<string, unknown> = structuredClone(tool);
  const [group, field] = path.split('.') as [string, string | undefined];
  if (field === undefined) {
    if (value === ABSENT) delete out[group];
    else out[group] = value;
  } else {
    const obj = { ...(out[group] as Record<string, unknown> | undefined) };
    if (value === ABSENT) delete obj[field];
    else obj[field] = value;
    out[group] = obj;
  }
  return out as Tool;
}

describe('escalations and their relaxations', () => {
  // [field, safer value, riskier value]
  it.each<[string, unknown, unknown]>([
    ['effects.sideEffects', 'none', 'compute'],
    ['effects.sideEffects', 'read_external_service', 'write'],
    ['effects.sideEffects', 'database', 'system'],
    ['effects.mode', 'read', 'write'],
    ['effects.mode', 'read', 'mixed'],
    ['effects.mode', 'mixed', 'write'],
    ['effects.reversible', 'full', 'partial'],
    ['effects.reversible', 'partial', 'none'],
    ['effects.risk', 'low', 'medium'],
    ['effects.risk', 'high', 'critical'],
    ['execution.retryClass', 'never', 'guarded'],
    ['execution.retryClass', 'guarded', 'safe'],
    ['approval.required', true, false],
    ['approval.required', true, ABSENT], // a read tool: the derived value is false
    ['approval.consent', true, false],
    ['approval.consent', true, ABSENT],
    ['auth.scopes', ['repo'], ['repo', 'admin:org']],
    ['auth.scopes', ABSENT, ['repo']],
    ['permissions', ['read_repo'], ['read_repo', 'write_repo']],
    ['providers', [{ name: 'primary' }], [{ name: 'primary' }, { name: 'fallback', priority: 10 }]],
    ['enabled', false, true],
    ['enabled', false, ABSENT],
  ])('%s: %j -> %j escalates; back relaxes', (field, safer, riskier) => {
    const up = diffTool('x.tool', withField(BASE, field, safer), withField(BASE, field, riskier));
    expect(up.changes).toEqual([expect.objectContaining({ field, class: 'escalation' })]);
    expect(up).toMatchObject({ status: 'changed', class: 'escalation', bumped: false, fails: true });

    const down = diffTool('x.tool', withField(BASE, field, riskier), withField(BASE, field, safer));
    expect(down.changes).toEqual([expect.objectContaining({ field, class: 'relaxation' })]);
    expect(down).toMatchObject({ status: 'changed', class: 'relaxation', fails: false });
  });

  it('names what a set gained or lost', () => {
    const d = diffTool('x.tool', BASE, withField(BASE, 'auth.scopes', ['admin:org']));
    expect(d.changes).toMatchObject([{ field: 'auth.scopes', class: 'escalation', notes: ['adds scope "admin:org"', 'removes scope "repo"'] }]);
  });

  it('an escalation with a version bump passes', () => {
    const d = diffTool('x.tool', BASE, { ...withField(BASE, 'effects.mode', 'write'), version: '1.1.0' });
    expect(d).toMatchObject({ class: 'escalation', bumped: true, fails: false, oldVersion: '1.0.0', newVersion: '1.1.0' });
  });
});

describe('neutral changes', () => {
  it.each<[string, unknown]>([
    ['description', 'Another text'],
    ['title', 'X tool'],
    ['tags', ['x']],
    ['version', '0.9.0'],
    ['execution.timeoutSec', 60],
    ['execution.allowParallel', true],
    ['effects.deterministic', false],
    ['auth.type', 'api_key'],
    ['providers', [{ name: 'primary', priority: 5, config: { region: 'eu' } }]],
    ['cost', { lane: 'high' }],
    ['inputSchema', { type: 'object', properties: { q: { type: 'string' } } }],
  ])('%s -> %j is neutral', (field, value) => {
    const d = diffTool('x.tool', BASE, withField(BASE, field, value));
    expect(d.changes.length).toBeGreaterThan(0);
    expect(d.changes.every((c) => c.class === 'neutral')).toBe(true);
    expect(d).toMatchObject({ status: 'changed', class: 'neutral', fails: false });
  });

  it('a schema change names a newly required parameter and a removed property', () => {
    const before = withField(BASE, 'inputSchema', { type: 'object', properties: { path: {}, mode: {} }, required: ['path'] });
    const after = withField(BASE, 'inputSchema', { type: 'object', properties: { path: {}, force: {} }, required: ['path', 'force'] });
    expect(diffTool('x.tool', before, after).changes).toEqual([
      expect.objectContaining({ field: 'inputSchema', class: 'neutral', notes: ['adds required parameter "force"', 'removes property "mode"'] }),
    ]);
  });

  it('the same value going from declared to derived is a neutral change', () => {
    const writer: Tool = { name: 'w', effects: { mode: 'write', sideEffects: 'write' }, approval: { required: true } };
    const silent: Tool = { name: 'w', effects: { mode: 'write', sideEffects: 'write' } };
    expect(diffTool('w', writer, silent).changes).toEqual([
      { field: 'approval.required', class: 'neutral', old: true, new: true, oldDerived: false, newDerived: true, notes: ['now derived, no longer declared'] },
    ]);
  });

  it('identical tools in another key order are unchanged', () => {
    const shuffled = JSON.parse(JSON.stringify({ providers: BASE.providers, effects: BASE.effects, ...BASE })) as Tool;
    expect(diffTool('x.tool', BASE, shuffled)).toMatchObject({ status: 'unchanged', changes: [], fails: false });
  });
});

describe('derived values are compared like declared ones', () => {
  it('dropping a read declaration quietly turns the tool into a write', () => {
    const before: Tool = { name: 'r', version: '1.0.0', effects: { mode: 'read', sideEffects: 'read_external_service' } };
    const after: Tool = { name: 'r', version: '1.0.0' };
    const d = diffTool('r', before, after);
    expect(d.fails).toBe(true);
    expect(d.changes).toContainEqual({ field: 'effects.mode', class: 'escalation', old: 'read', new: 'write', oldDerived: false, newDerived: true });
    expect(d.changes).toContainEqual(expect.objectContaining({ field: 'effects.reversible', class: 'escalation', oldDerived: true, newDerived: true }));
  });

  it('declaring a writer read-only drops its derived approval: an escalation', () => {
    const before: Tool = { name: 'w', version: '1.0.0', effects: { mode: 'write', sideEffects: 'write' } };
    const after: Tool = { name: 'w', version: '1.0.0', effects: { mode: 'read', sideEffects: 'read_external_service' } };
    const d = diffTool('w', before, after);
    expect(d.changes).toContainEqual(expect.objectContaining({ field: 'approval.required', class: 'escalation', old: true, new: false }));
    expect(d.changes).toContainEqual(expect.objectContaining({ field: 'effects.mode', class: 'relaxation' }));
    expect(d.fails).toBe(true);
  });
});
