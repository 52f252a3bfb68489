import { describe, expect, it } from 'vitest';
import { OIDC_DEFAULTS } from '../../../src/runtime/identity/auth-config.js';
import { claimList, claimValue, principalFromClaims } from '../../../src/runtime/identity/claims.js';

describe('claims', () => {
  it.each<[string, Record<string, unknown>, string, unknown]>([
    ['a top-level claim', { sub: 'a' }, 'sub', 'a'],
    ['a dotted path', { realm_access: { roles: ['caller'] } }, 'realm_access.roles', ['caller']],
    ['a key that has dots itself', { 'https://toolcap.example/roles': ['admin'] }, 'https://toolcap.example/roles', ['admin']],
    ['a missing path', { a: { b: 1 } }, 'a.c', undefined],
    ['a path through an array', { a: [{ b: 1 }] }, 'a.0.b', undefined],
    ['an inherited property', {}, 'constructor', undefined],
    ['a path through __proto__', JSON.parse('{"__proto__": {"x": 1}}') as Record<string, unknown>, '__proto__.x', 1],
  ])('claimValue: %s', (_label, claims, name, expected) => {
    expect(claimValue(claims, name)).toEqual(expected);
  });

  it.each<[unknown, string[]]>([
    [['a', 'b'], ['a', 'b']],
    ['a b,c  d', ['a', 'b', 'c', 'd']],
    [['a', 1, null, '', 'b'], ['a', 'b']],
    [42, []],
    [undefined, []],
    [{ a: 1 }, []],
  ])('claimList(%j) = %j', (value, expected) => {
    expect(claimList(value)).toEqual(expected);
  });

  it('maps a principal, keeping persona names exactly as the token spells them', () => {
    expect(principalFromClaims({ sub: 'u1', roles: ['caller', 'Admin'], personas: ['Intern', 'intern '], default_persona: 'Intern' }, OIDC_DEFAULTS, {})).toEqual({
      id: 'u1', roles: ['caller'], personas: ['Intern', 'intern '], defaultPersona: 'Intern', via: 'oidc',
    });
  });

  it('refuses a principal claim that is missing, empty or not a string', () => {
    for (const sub of [undefined, '', 42, ['a']]) expect(principalFromClaims({ sub }, OIDC_DEFAULTS, {})).toHaveProperty('error');
  });

  it('does not take a static grant for a principal named like an Object property', () => {
    expect(principalFromClaims({ sub: 'constructor' }, OIDC_DEFAULTS, {})).toEqual({ id: 'constructor', roles: [], personas: [], via: 'oidc' });
  });
});
