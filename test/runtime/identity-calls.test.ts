/**
 * Calls by an authenticated principal: principal x role x persona -> the
 * outcome of runtime.call, the persona bypasses of issue 11 failing closed,
 * the audit actor, and the per-principal rate limit.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { callErrorWire } from '../../src/runtime/errors.js';
import type { Principal } from '../../src/runtime/identity/principal.js';
import { closeAll, expectCode, fakeTool, harness } from './helpers.js';

afterEach(closeAll);

const p = (id: string, roles: Principal['roles'], personas: string[], defaultPersona?: string): Principal => ({
  id,
  roles,
  personas,
  ...(defaultPersona !== undefined ? { defaultPersona } : {}),
  via: 'api-key',
});

const ATLAS = p('ci-bot', ['caller'], ['atlas'], 'atlas');
const INTERN = p('intern-bot', ['caller'], ['intern'], 'intern');
const NO_DEFAULT = p('nodefault', ['caller'], ['atlas', 'ops']);
const APPROVER = p('ana', ['approver'], ['*']);
const ADMIN = p('root', ['admin'], ['*']);

const TOOLS = [
  fakeTool('notes.read'),
  fakeTool('atlas.only', { scope: { personas: ['atlas'] } }),
  fakeTool('ops.only', { scope: { personas: ['ops'] } }),
  fakeTool('intern.desk', { scope: { personas: ['intern'] } }),
];
// a policy rule on the resolved persona: interns need approval to read notes
const RULES = [{ tools: ['notes.read'], personas: ['intern'], reason: 'interns need review' }];

type Expect = 'ok' | 'pending_approval' | 'FORBIDDEN' | 'FORBIDDEN_PERSONA' | 'UNKNOWN_PERSONA' | 'TOOL_NOT_FOUND';

const TABLE: Array<[label: string, principal: Principal | undefined, persona: string | undefined, tool: string, expected: Expect]> = [
  ['caller, granted persona, scoped tool', ATLAS, 'atlas', 'atlas.only', 'ok'],
  ['caller, no persona: its default', ATLAS, undefined, 'atlas.only', 'ok'],
  ['caller, empty persona: its default', ATLAS, '', 'atlas.only', 'ok'],
  ['caller, granted persona, shared tool', ATLAS, 'atlas', 'notes.read', 'ok'],
  ['caller, known persona not granted', ATLAS, 'ops', 'notes.read', 'FORBIDDEN_PERSONA'],
  ['caller, another persona\'s tool', ATLAS, 'atlas', 'ops.only', 'TOOL_NOT_FOUND'],
  ['caller, case trick', ATLAS, 'Atlas', 'atlas.only', 'UNKNOWN_PERSONA'],
  ['caller, trailing space', ATLAS, 'atlas ', 'atlas.only', 'UNKNOWN_PERSONA'],
  ['caller, misspelt persona', ATLAS, 'atals', 'notes.read', 'UNKNOWN_PERSONA'],
  ['caller without default, no persona: shared tools only', NO_DEFAULT, undefined, 'notes.read', 'ok'],
  ['caller without default, no persona, scoped tool', NO_DEFAULT, undefined, 'atlas.only', 'TOOL_NOT_FOUND'],
  ['caller without default, second grant', NO_DEFAULT, 'ops', 'ops.only', 'ok'],
  ['intern, no persona: the rule matches its default', INTERN, undefined, 'notes.read', 'pending_approval'],
  ['intern, named persona: the rule matches', INTERN, 'intern', 'notes.read', 'pending_approval'],
  ['intern, "Intern" fails closed', INTERN, 'Intern', 'notes.read', 'UNKNOWN_PERSONA'],
  ['intern, "intern " fails closed', INTERN, 'intern ', 'notes.read', 'UNKNOWN_PERSONA'],
  ['intern, claims atlas', INTERN, 'atlas', 'notes.read', 'FORBIDDEN_PERSONA'],
  ['approver may not call', APPROVER, 'atlas', 'notes.read', 'FORBIDDEN'],
  ['admin, any persona', ADMIN, 'ops', 'ops.only', 'ok'],
  ['admin, no persona, shared', ADMIN, undefined, 'notes.read', 'ok'],
  ['admin, unknown persona', ADMIN, 'nobody', 'notes.read', 'UNKNOWN_PERSONA'],
  ['library (no principal): as before', undefined, 'atlas', 'atlas.only', 'ok'],
  ['library (no principal): an unknown persona gets shared tools, as before', undefined, 'Intern', 'notes.read', 'ok'],
];

describe('runtime.call with a principal: principal x role x persona', () => {
  it.each(TABLE)('%s', async (_label, principal, persona, tool, expected) => {
    const h = await harness(TOOLS, { rules: RULES });
    const context = { ...(principal ? { principal } : {}), ...(persona !== undefined ? { persona } : {}) };
    const call = h.runtime.call(tool, {}, context);
    if (expected === 'ok' || expected === 'pending_approval') {
      expect((await call).status).toBe(expected);
      return;
    }
    const e = await expectCode(call, expected);
    if (expected === 'FORBIDDEN_PERSONA' || expected === 'UNKNOWN_PERSONA') {
      expect(e.status).toBe(expected === 'FORBIDDEN_PERSONA' ? 403 : 404);
      expect(e.extra.allowed).toEqual(principal?.personas.includes('*') ? ['atlas', 'intern', 'ops'] : [...(principal?.personas ?? [])].sort());
      expect(callErrorWire(e).details.allowed).toEqual(e.extra.allowed);
    }
    if (expected === 'FORBIDDEN') expect(e.status).toBe(403);
    expect(h.fakes.count()).toBe(0);
  });

  it('the principal, not a caller name, is the audit actor and the approval\'s requester', async () => {
    const h = await harness(TOOLS, { rules: RULES });
    const ok = await h.runtime.call('notes.read', {}, { principal: ATLAS, caller: 'security-officer' });
    const pending = await h.runtime.call('notes.read', {}, { principal: INTERN, caller: 'security-officer' });
    if (ok.status !== 'ok' || pending.status !== 'pending_approval') throw new Error('unexpected outcome');
    expect(pending.approval).toMatchObject({ requestedBy: 'intern-bot', requestedByPrincipal: 'intern-bot', persona: 'intern' });
    await h.flush();
    expect(await h.sqlite.listAudit({ callId: ok.callId })).toMatchObject([{ kind: 'call.ok', actor: 'ci-bot', persona: 'atlas' }]);
    expect(await h.sqlite.listAudit({ callId: pending.callId })).toMatchObject([{ kind: 'call.pending_approval', actor: 'intern-bot' }]);
    // the provider sees the resolved persona
    expect(h.fakes.calls[0]?.ctx.persona).toBe('atlas');
  });
});

describe('known personas and resolvePersona', () => {
  it('knows the catalog\'s personas, those the rules name, and the extra ones from the options', async () => {
    const h = await harness(TOOLS, { rules: [...RULES, { personas: ['auditor'], minRisk: 'critical' }], personas: ['night-shift', 'atlas'] });
    expect(h.runtime.knownPersonas()).toEqual(['atlas', 'auditor', 'intern', 'night-shift', 'ops']);
    // a persona known only from config is forbidden, not unknown
    await expectCode(h.runtime.call('notes.read', {}, { principal: ATLAS, persona: 'night-shift' }), 'FORBIDDEN_PERSONA');
  });

  it.each([
    [ATLAS, undefined, 'atlas'],
    [ATLAS, null, 'atlas'],
    [ATLAS, 'atlas', 'atlas'],
    [NO_DEFAULT, undefined, undefined],
    [ADMIN, 'ops', 'ops'],
    [undefined, 'Anything', 'Anything'],
    [undefined, undefined, undefined],
  ] as const)('resolvePersona(%o, %o) -> %o', async (principal, requested, expected) => {
    const h = await harness(TOOLS);
    expect(h.runtime.resolvePersona(principal, requested)).toBe(expected);
  });

  it.each([
    ['ops', 'FORBIDDEN_PERSONA', 403],
    ['Atlas', 'UNKNOWN_PERSONA', 404],
  ] as const)('resolvePersona refuses %s with %s and the allowed personas', async (requested, code, status) => {
    const h = await harness(TOOLS);
    const e = await expectCode(Promise.resolve().then(() => h.runtime.resolvePersona(ATLAS, requested)), code);
    expect(e.status).toBe(status);
    expect(e.extra.allowed).toEqual(['atlas']);
  });
});

describe('per-principal rate limit', () => {
  it('refuses a principal over its limit with RATE_LIMITED and retryAfterMs; others and library calls go on', async () => {
    const h = await harness(TOOLS, { rateLimit: { points: 3, durationSec: 60, principals: { 'vip-bot': 0 } } });
    for (let i = 0; i < 3; i++) expect((await h.runtime.call('notes.read', {}, { principal: ATLAS })).status).toBe('ok');
    const e = await expectCode(h.runtime.call('notes.read', {}, { principal: ATLAS }), 'RATE_LIMITED');
    expect(e.status).toBe(429);
    expect(e.extra.retryAfterMs).toBeGreaterThan(0);
    expect(e.extra.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(callErrorWire(e).retryAfterSec).toBeGreaterThanOrEqual(1);
    expect(h.fakes.count()).toBe(3);
    expect((await h.runtime.call('notes.read', {}, { principal: NO_DEFAULT })).status).toBe('ok');
    for (let i = 0; i < 5; i++) expect((await h.runtime.call('notes.read', {}, { principal: { ...ATLAS, id: 'vip-bot' } })).status).toBe('ok');
    for (let i = 0; i < 5; i++) expect((await h.runtime.call('notes.read', {})).status).toBe('ok');
  });

  it('has no limit without rateLimit', async () => {
    const h = await harness(TOOLS);
    for (let i = 0; i < 100; i++) await h.runtime.call('notes.read', {}, { principal: ATLAS });
    expect(h.fakes.count()).toBe(100);
  });
});
