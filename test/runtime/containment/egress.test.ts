import { describe, expect, it } from 'vitest';
import { defaultEgressAllow, EgressError, EgressGuard, type Resolver } from '../../../src/runtime/containment/egress.js';

/** A resolver answering from a table, counting lookups. */
function table(answers: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (host: string) => {
    calls.push(host);
    const list = answers[host];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

const allow = ['api.example.com', '*.slack.com', '203.0.113.7', '10.20.0.0/16', '::1', '169.254.169.254', 'metadata.google.internal'];

describe('EgressGuard.check (by name)', () => {
  const guard = new EgressGuard({ allow });
  it.each([
    ['https://api.example.com/v1', true, undefined],
    ['http://API.EXAMPLE.COM./v1', true, undefined],
    ['https://other.example.com/', false, 'HOST_NOT_ALLOWED'],
    ['https://example.com/', false, 'HOST_NOT_ALLOWED'],
    ['https://hooks.slack.com/x', true, undefined],
    ['https://a.b.slack.com/x', true, undefined],
    ['https://slack.com/', false, 'HOST_NOT_ALLOWED'], // wildcard: subdomains, not the apex
    ['https://evilslack.com/', false, 'HOST_NOT_ALLOWED'],
    ['https://203.0.113.7/', true, undefined],
    ['https://10.20.3.4:8443/', true, undefined],
    ['https://10.21.0.1/', false, 'ADDRESS_NOT_ALLOWED'],
    ['http://[::1]:8080/', true, undefined],
    ['http://127.0.0.1/', false, 'ADDRESS_NOT_ALLOWED'],
    ['http://169.254.169.254/latest/meta-data/', true, undefined],
    ['http://metadata.google.internal/', true, undefined],
    ['http://metadata.goog/', false, 'METADATA_HOST'],
    ['http://8.8.8.8/', false, 'HOST_NOT_ALLOWED'],
    ['ftp://api.example.com/', false, 'SCHEME'],
    ['file:///etc/passwd', false, 'SCHEME'],
    ['not a url', false, 'SCHEME'],
  ])('%s -> %s', (url, allowed, code) => {
    const decision = guard.check(url);
    expect(decision.allowed).toBe(allowed);
    expect(guard.isAllowed(url)).toBe(allowed);
    if (!decision.allowed) expect(decision.code).toBe(code);
  });

  it('a wildcard "*" allows any public host, never an internal address or a metadata name', () => {
    const any = new EgressGuard({ allow: ['*'] });
    expect(any.isAllowed('https://anything.test/')).toBe(true);
    expect(any.isAllowed('https://8.8.8.8/')).toBe(true);
    expect(any.isAllowed('http://127.0.0.1/')).toBe(false);
    expect(any.check('http://metadata.google.internal/')).toMatchObject({ allowed: false, code: 'METADATA_HOST' });
  });

  it('a CIDR containing a metadata address does not unlock it; an exact entry does', () => {
    expect(new EgressGuard({ allow: ['169.254.0.0/16'] }).check('http://169.254.169.254/')).toMatchObject({ allowed: false, code: 'ADDRESS_NOT_ALLOWED' });
    expect(new EgressGuard({ allow: ['169.254.0.0/16'] }).isAllowed('http://169.254.1.1/')).toBe(true);
  });

  it.each([['http://x'], ['10.0.0.0/33'], ['a b'], ['*.']])('refuses the entry %j', (entry) => {
    expect(() => new EgressGuard({ allow: [entry] })).toThrow(TypeError);
  });
});

describe('EgressGuard.resolve (by DNS answer)', () => {
  it.each([
    ['api.example.com', ['93.184.216.34'], '93.184.216.34'],
    ['api.example.com', ['2606:2800:220:1::1', '93.184.216.34'], '2606:2800:220:1::1'],
    ['svc.slack.com', ['10.20.1.1'], '10.20.1.1'], // listed CIDR
  ])('%s answering %j connects to %s', async (host, answers, pinned) => {
    const guard = new EgressGuard({ allow }, { resolver: table({ [host]: answers }) });
    await expect(guard.resolve(host)).resolves.toMatchObject({ host, address: pinned });
  });

  it.each([
    ['api.example.com', ['127.0.0.1'], 'loopback'],
    ['api.example.com', ['93.184.216.34', '10.0.0.5'], 'private'], // any bad answer refuses
    ['api.example.com', ['169.254.169.254'], 'metadata'],
    ['api.example.com', ['fe80::1'], 'link-local'],
    ['api.example.com', ['::ffff:127.0.0.1'], 'loopback'],
    ['api.example.com', ['fd00:ec2::254'], 'metadata'],
    ['api.example.com', ['0.0.0.0'], 'unspecified'],
  ])('%s answering %j is refused unless listed (%s)', async (host, answers, kind) => {
    const guard = new EgressGuard({ allow: ['api.example.com'] }, { resolver: table({ [host]: answers }) });
    const err = await guard.resolve(host).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EgressError);
    expect(err).toMatchObject({ code: 'ADDRESS_NOT_ALLOWED', kind, host });
  });

  it('an internal answer passes when its address is listed', async () => {
    const guard = new EgressGuard({ allow: ['svc.internal', '127.0.0.1'] }, { resolver: table({ 'svc.internal': ['127.0.0.1'] }) });
    await expect(guard.resolve('svc.internal')).resolves.toMatchObject({ address: '127.0.0.1', family: 4, kind: 'loopback' });
  });

  it('refuses by name before any DNS lookup', async () => {
    const resolver = table({ 'evil.test': ['8.8.8.8'] });
    const guard = new EgressGuard({ allow }, { resolver });
    await expect(guard.resolve('evil.test')).rejects.toMatchObject({ code: 'HOST_NOT_ALLOWED' });
    expect(resolver.calls).toEqual([]);
  });

  it('IP literals are checked without DNS', async () => {
    const resolver = table({});
    const guard = new EgressGuard({ allow }, { resolver });
    await expect(guard.resolve('203.0.113.7')).resolves.toMatchObject({ address: '203.0.113.7' });
    await expect(guard.resolve('[::1]')).resolves.toMatchObject({ address: '::1', family: 6 });
    await expect(guard.resolve('127.0.0.1')).rejects.toMatchObject({ code: 'ADDRESS_NOT_ALLOWED' });
    expect(resolver.calls).toEqual([]);
  });

  it('DNS failure and empty answers are DNS_FAILED', async () => {
    const guard = new EgressGuard({ allow: ['*'] }, { resolver: table({ 'empty.test': [] }) });
    await expect(guard.resolve('missing.test')).rejects.toMatchObject({ code: 'DNS_FAILED' });
    await expect(guard.resolve('empty.test')).rejects.toMatchObject({ code: 'DNS_FAILED' });
  });

  it('uses the system resolver by default (localhost is loopback, refused unless listed)', async () => {
    await expect(new EgressGuard({ allow: ['localhost'] }).resolve('localhost')).rejects.toMatchObject({ code: 'ADDRESS_NOT_ALLOWED' });
    await expect(new EgressGuard({ allow: ['localhost', '127.0.0.0/8', '::1'] }).resolve('localhost')).resolves.toMatchObject({ kind: 'loopback' });
  });
});

describe('defaultEgressAllow', () => {
  it('takes the hosts of base URLs, with the loopback and private IPs they name, leaving out link-local, metadata and reserved ones', () => {
    expect(
      defaultEgressAllow([
        'https://api.github.com/v3',
        'https://API.github.com',
        'http://127.0.0.1:8080',
        'http://169.254.169.254/',
        'http://metadata.google.internal/',
        'https://203.0.113.7/', // documentation range: reserved
        'https://8.8.8.8/',
        'http://[::1]/',
        'http://10.0.0.5/',
        'http://localhost:4317/',
        'nonsense',
      ]),
    ).toEqual(['10.0.0.5', '127.0.0.1', '8.8.8.8', '::1', 'api.github.com', 'localhost'].sort());
  });
});
