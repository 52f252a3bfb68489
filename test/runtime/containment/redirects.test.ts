import { describe, expect, it } from 'vitest';
import { EgressGuard } from '../../../src/runtime/containment/egress.js';
import { redirectDecision, sameOrigin, withoutCredentials } from '../../../src/runtime/containment/redirects.js';

describe('sameOrigin', () => {
  it.each([
    ['https://a.test/x', 'https://a.test/y?z=1', true],
    ['https://a.test/x', 'https://a.test:443/y', true],
    ['https://a.test/x', 'https://A.TEST/y', true],
    ['https://a.test/x', 'http://a.test/x', false],
    ['https://a.test/x', 'https://a.test:8443/x', false],
    ['https://a.test/x', 'https://b.a.test/x', false],
    ['https://a.test/x', 'not a url', false],
  ])('%s and %s: %s', (a, b, same) => {
    expect(sameOrigin(a, b)).toBe(same);
  });
});

describe('redirectDecision', () => {
  const egress = new EgressGuard({ allow: ['a.test', 'b.test'] });
  it.each([
    ['same origin', 'https://a.test/x', '/y', {}, 'follow-with-credentials'],
    ['same origin, absolute', 'https://a.test/x', 'https://a.test/y', { egress }, 'follow-with-credentials'],
    ['another origin', 'https://a.test/x', 'https://b.test/y', {}, 'follow-without-credentials'],
    ['a downgrade to http', 'https://a.test/x', 'http://a.test/x', {}, 'follow-without-credentials'],
    ['another port', 'https://a.test/x', 'https://a.test:8443/x', {}, 'follow-without-credentials'],
    ['another origin, refused by config', 'https://a.test/x', 'https://b.test/y', { crossOrigin: 'refuse' }, 'refuse'],
    ['same origin under crossOrigin refuse', 'https://a.test/x', '/y', { crossOrigin: 'refuse' }, 'follow-with-credentials'],
    ['a host egress refuses', 'https://a.test/x', 'https://evil.test/', { egress }, 'refuse'],
    ['the metadata endpoint', 'https://a.test/x', 'http://169.254.169.254/latest', { egress }, 'refuse'],
    ['a file URL', 'https://a.test/x', 'file:///etc/passwd', {}, 'refuse'],
    ['a URL with user info', 'https://a.test/x', 'https://u:p@a.test/', {}, 'refuse'],
    ['an invalid URL', 'https://a.test/x', 'http://[bad', {}, 'refuse'],
  ] as const)('%s -> %s', (_, from, to, policy, action) => {
    expect(redirectDecision(from, to, policy).action).toBe(action);
  });
});

describe('withoutCredentials', () => {
  it('drops credential headers, any case, and the extra ones named', () => {
    const headers = { Authorization: 'Bearer x', cookie: 'a=b', 'X-Api-Key': 'k', accept: 'application/json' };
    expect(withoutCredentials(headers, ['x-api-key'])).toEqual({ accept: 'application/json' });
    expect(headers).toHaveProperty('Authorization'); // not mutated
  });
});
