import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ACTIONS,
  ROLES,
  allowedPersonas,
  can,
  mayDecide,
  resolvePersona,
  toolGranted,
  type Action,
  type Principal,
  type Role,
} from '../../../src/runtime/identity/principal.js';

const principal = (over: Partial<Principal> = {}): Principal => ({ id: 'p', roles: ['caller'], personas: [], via: 'local', ...over });

describe('roles and actions', () => {
  it('has a closed, ordered set of roles and actions', () => {
    expect(ROLES).toEqual(['caller', 'approver', 'admin']);
    expectTypeOf<Role>().toEqualTypeOf<'caller' | 'approver' | 'admin'>();
    expectTypeOf<'approvals.decide'>().toMatchTypeOf<Action>();
  });

  // the whole permission table: every role against every action
  const allowed: Record<Role, readonly Action[]> = {
    caller: ['list', 'search', 'call', 'approvals.read.own'],
    approver: ['list', 'search', 'approvals.read.own', 'approvals.read.all', 'approvals.decide'],
    admin: ACTIONS,
  };
  const table = ROLES.flatMap((role) => ACTIONS.map((action) => [role, action, allowed[role].includes(action)] as const));

  it.each(table)('%s may %s: %s', (role, action, expected) => {
    expect(can(principal({ roles: [role] }), action)).toBe(expected);
  });

  it('allows what any of several roles allows, and nothing without a role', () => {
    const both = principal({ roles: ['caller', 'approver'] });
    expect(can(both, 'call')).toBe(true);
    expect(can(both, 'approvals.decide')).toBe(true);
    expect(can(both, 'audit.read')).toBe(false);
    for (const action of ACTIONS) expect(can(principal({ roles: [] }), action)).toBe(false);
  });
});

describe('resolvePersona', () => {
  const known = ['atlas', 'intern', 'ops', 'Zeta'];
  const caller = principal({ personas: ['atlas', 'intern'], defaultPersona: 'atlas' });
  const noDefault = principal({ personas: ['intern'] });
  const everything = principal({ roles: ['admin'], personas: ['*'] });
  const staleDefault = principal({ personas: ['gone'], defaultPersona: 'gone' });
  const forbiddenDefault = principal({ personas: ['atlas'], defaultPersona: 'ops' });

  it.each<[string, Principal, string | null | undefined, unknown]>([
    ['a granted persona', caller, 'atlas', { persona: 'atlas' }],
    ['another granted persona', caller, 'intern', { persona: 'intern' }],
    ['no persona: the default', caller, undefined, { persona: 'atlas' }],
    ['null: the default', caller, null, { persona: 'atlas' }],
    ['empty: the default', caller, '', { persona: 'atlas' }],
    ['no persona and no default: none', noDefault, undefined, { persona: null }],
    ['a known persona not granted', caller, 'ops', { error: 'FORBIDDEN_PERSONA', allowed: ['atlas', 'intern'] }],
    ['an unknown persona', caller, 'finance', { error: 'UNKNOWN_PERSONA', allowed: ['atlas', 'intern'] }],
    ['another case', caller, 'Intern', { error: 'UNKNOWN_PERSONA', allowed: ['atlas', 'intern'] }],
    ['a trailing space', caller, 'intern ', { error: 'UNKNOWN_PERSONA', allowed: ['atlas', 'intern'] }],
    ['a leading space', caller, ' atlas', { error: 'UNKNOWN_PERSONA', allowed: ['atlas', 'intern'] }],
    ['a look-alike (Cyrillic a)', caller, '\u0430tlas', { error: 'UNKNOWN_PERSONA', allowed: ['atlas', 'intern'] }],
    ['a case variant of a known persona', caller, 'zeta', { error: 'UNKNOWN_PERSONA', allowed: ['atlas', 'intern'] }],
    ['the wildcard asked for by name', caller, '*', { error: 'UNKNOWN_PERSONA', allowed: ['atlas', 'intern'] }],
    ['any known persona with *', everything, 'ops', { persona: 'ops' }],
    ['an unknown persona with *', everything, 'finance', { error: 'UNKNOWN_PERSONA', allowed: ['Zeta', 'atlas', 'intern', 'ops'] }],
    ['no persona with * and no default', everything, undefined, { persona: null }],
    ['a default that no longer exists', staleDefault, undefined, { error: 'UNKNOWN_PERSONA', allowed: [] }],
    ['a default that is not granted', forbiddenDefault, undefined, { error: 'FORBIDDEN_PERSONA', allowed: ['atlas'] }],
  ])('%s', (_label, who, requested, expected) => {
    expect(resolvePersona(who, requested, known)).toEqual(expected);
  });

  it('lists the allowed personas once each, sorted by code point', () => {
    expect(allowedPersonas(principal({ personas: ['ops', 'atlas', 'ops', 'gone'] }), ['ops', 'atlas', 'ops'])).toEqual(['atlas', 'ops']);
  });
});

describe('mayDecide: grants and four eyes', () => {
  const approver = principal({ id: 'alice', roles: ['approver'], approves: { personas: ['atlas'], tools: ['files.*', 'github.merge'] } });
  const admin = principal({ id: 'root', roles: ['admin'] });
  const everywhere = principal({ id: 'bob', roles: ['approver'], approves: { personas: ['*'], tools: ['*'] } });

  it.each<[string, Principal, { tool: string; persona: string | null; requestedByPrincipal?: string }, unknown]>([
    ['a granted tool and persona', approver, { tool: 'files.delete', persona: 'atlas' }, { ok: true }],
    ['a nested tool under the prefix', approver, { tool: 'files.trash.empty', persona: 'atlas' }, { ok: true }],
    ['an exact tool grant', approver, { tool: 'github.merge', persona: 'atlas' }, { ok: true }],
    ['a tool outside the grants', approver, { tool: 'github.delete_repo', persona: 'atlas' }, { ok: false, reason: 'FORBIDDEN' }],
    ['a prefix look-alike', approver, { tool: 'filesystem.delete', persona: 'atlas' }, { ok: false, reason: 'FORBIDDEN' }],
    ['a persona outside the grants', approver, { tool: 'files.delete', persona: 'ops' }, { ok: false, reason: 'FORBIDDEN' }],
    ['a persona in another case', approver, { tool: 'files.delete', persona: 'Atlas' }, { ok: false, reason: 'FORBIDDEN' }],
    ['no persona without a * grant', approver, { tool: 'files.delete', persona: null }, { ok: false, reason: 'FORBIDDEN' }],
    ['no persona with a * grant', everywhere, { tool: 'x.y', persona: null }, { ok: true }],
    ['its own request', approver, { tool: 'files.delete', persona: 'atlas', requestedByPrincipal: 'alice' }, { ok: false, reason: 'SELF_APPROVAL' }],
    ["someone else's request", approver, { tool: 'files.delete', persona: 'atlas', requestedByPrincipal: 'carol' }, { ok: true }],
    ['an admin: anything', admin, { tool: 'anything.at_all', persona: 'ops' }, { ok: true }],
    ['an admin: not its own request', admin, { tool: 'x', persona: null, requestedByPrincipal: 'root' }, { ok: false, reason: 'SELF_APPROVAL' }],
    ['a caller', principal({ approves: { personas: ['*'], tools: ['*'] } }), { tool: 'x', persona: null }, { ok: false, reason: 'FORBIDDEN' }],
    ['an approver without grants', principal({ roles: ['approver'] }), { tool: 'x', persona: null }, { ok: false, reason: 'FORBIDDEN' }],
  ])('%s', (_label, who, approval, expected) => {
    expect(mayDecide(who, approval)).toEqual(expected);
  });

  it('matches tools by *, exact name or namespace prefix only', () => {
    expect(toolGranted(['*'], 'a')).toBe(true);
    expect(toolGranted(['a.*'], 'a')).toBe(false);
    expect(toolGranted(['a.*'], 'a.b')).toBe(true);
    expect(toolGranted(['a.b'], 'a.bc')).toBe(false);
    expect(toolGranted([], 'a')).toBe(false);
  });
});
