import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from '../../../src/runtime/containment/redact.js';

const R = REDACTED;

describe('redactText: token shapes', () => {
  const { redactText } = createRedactor();
  it.each([
    ['auth failed with token sk-live-4f9a8b7c6d5e4f3a', `auth failed with token ${R}`],
    ['key sk-proj-abcdEFGH1234_xyz end', `key ${R} end`],
    ['sk-ant-api03-abcdefghijklmnop', R],
    ['stripe sk_live_51HxYzAbCdEf', `stripe ${R}`],
    ['Authorization: Bearer abc.def-ghi_jkl', `Authorization: Bearer ${R}`],
    ['authorization: basic dXNlcjpwYXNzd29yZA==', `authorization: basic ${R}`],
    ['ghp_0123456789abcdefghijABCDEFGHIJ012345', R],
    ['github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', R],
    ['xoxb-1234567890-abcdefghij', R],
    ['xoxp-1234-5678-abcdefghijk', R],
    ['AKIAIOSFODNN7EXAMPLE in config', `${R} in config`],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', R],
    ['alg none: eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.', `alg none: ${R}`],
    [`tcap_0123456789abcdef_${'A'.repeat(43)}`, `tcap_0123456789abcdef_${R}`],
    ['tcap_malformed-but-long', R],
    // the second tcap_ shape's lookahead is case-sensitive: a screen that made it case-insensitive let these through
    ['tcap_0123456789ABCDEF_[REDACTED]', `${R}${R}`],
    ['tcap_0123456789abcdef_[redacted]', `${R}[redacted]`],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----\nafter', `${R}\nafter`],
    ['tail: -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhk', `tail: ${R}`], // cut off by a stderr tail
    ['postgres://app:s3cr3t-pw@db:5432/x', `postgres://app:${R}@db:5432/x`],
    ['https://u:p@h.test/', `https://u:${R}@h.test/`],
    ['see a.b.postgres://u:pw@h', `see a.b.postgres://u:${R}@h`],
    ['id xeyJabcde-eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig', `id xeyJabcde-${R}`], // an eyJ not at a word start before it
    ['GET /login?user=a&password=hunter22&x=1', `GET /login?user=a&password=${R}&x=1`],
    ['?access_token=abc123&ok=1', `?access_token=${R}&ok=1`],
    ['PASSWORD=topsecret ./run', `PASSWORD=${R} ./run`],
    ['nothing to see: sk-1 github ghp_short xox-', 'nothing to see: sk-1 github ghp_short xox-'],
    ['a password field', 'a password field'],
  ])('%j', (input, output) => {
    expect(redactText(input)).toBe(output);
  });

  it.each([
    ['many JWT starts in one run', 'eyJab-'],
    ['many URL scheme starts in one run', 'a.'],
  ])('%s: linear, not a scan to the run\'s end from each (200 KB took about 20 s each)', (_, unit) => {
    const text = unit.repeat(200_000 / unit.length);
    const start = performance.now();
    expect(redactText(text)).toBe(text);
    expect(performance.now() - start).toBeLessThan(2000);
  });

  it('finds a shape anywhere in a long text, and every shape of a text holding several', () => {
    const benign = 'the call returned 42 rows from db:5432; '.repeat(50);
    expect(redactText(`${benign}ghp_0123456789abcdefghijABCDEFGHIJ012345 ${benign}`)).toBe(`${benign}${R} ${benign}`);
    expect(redactText('bearer abcdefgh1234 then AKIAIOSFODNN7EXAMPLE and ?token=zzz')).toBe(`bearer ${R} then ${R} and ?token=${R}`);
  });
});

describe('redactText: known secrets', () => {
  const secrets = ['p@ss/w0rd&x', 'hunter2hunter2', 'short', '', undefined, 'hunter2'];
  const { redactText } = createRedactor({ secrets, patterns: [/\bACME-\d{6}\b/] });
  it.each([
    ['psql: password p@ss/w0rd&x rejected', `psql: password ${R} rejected`],
    ['url ?pw=p%40ss%2Fw0rd%26x', `url ?pw=${R}`], // URL-encoded
    ['{"pw":"hunter2hunter2"}', `{"pw":"${R}"}`],
    ['hunter2hunter2', R], // the longer secret wins over its prefix hunter2
    ['hunter2 alone', `${R} alone`], // seven characters: searched
    ['short is short', 'short is short'], // under six characters: not searched
    ['order ACME-123456 failed', `order ${R} failed`],
  ])('%j', (input, output) => {
    expect(redactText(input)).toBe(output);
  });
});

describe('redact: values', () => {
  const { redact } = createRedactor({ secrets: ['PGPASSWORD-value-1'] });

  it('redacts strings at any depth and credential-named properties, without mutating', () => {
    const input = {
      message: 'connect failed: PGPASSWORD-value-1',
      detail: { stderr: ['line', 'token sk-live-abcdefghijkl'], code: 2, ok: true, nothing: null },
      headers: { Authorization: 'anything at all', 'x-api-key': 'k', accept: 'json' },
      password: 'pw',
      apiKey: '',
    };
    const before = structuredClone(input);
    expect(redact(input)).toEqual({
      message: `connect failed: ${R}`,
      detail: { stderr: ['line', `token ${R}`], code: 2, ok: true, nothing: null },
      headers: { Authorization: R, 'x-api-key': R, accept: 'json' },
      password: R,
      apiKey: '',
    });
    expect(input).toEqual(before);
  });

  it('is safe with cycles and shared references', () => {
    const shared = { s: 'sk-live-abcdefghijkl' };
    const a: Record<string, unknown> = { one: shared, two: shared };
    a['self'] = a;
    expect(redact(a)).toEqual({ one: { s: R }, two: { s: R }, self: '[Circular]' });
  });

  it('stops at the depth bound', () => {
    let deep: unknown = 'sk-live-abcdefghijkl';
    for (let i = 0; i < 5000; i++) deep = [deep];
    let out = createRedactor({ maxDepth: 3 }).redact(deep) as unknown;
    expect(JSON.stringify(out)).toBe('[[["[Truncated]"]]]');
    out = redact(deep); // the default bound: no stack overflow
    expect(JSON.stringify(out)).toContain('[Truncated]');
  });

  it('turns errors into plain objects without their stack', () => {
    const err = Object.assign(new Error('failed with PGPASSWORD-value-1'), { code: 'E', token: 'x' });
    expect(redact({ err })).toEqual({ err: { name: 'Error', message: `failed with ${R}`, code: 'E', token: R } });
  });

  it.each([
    ['a token as a key', { 'ghp_abcdefghijklmnopqrstuvwxyz0123456789': 1, other: 2 }, { [R]: 1, other: 2 }],
    ['a known secret in a key', { 'user PGPASSWORD-value-1': { ok: true } }, { [`user ${R}`]: { ok: true } }],
    ['two token keys: both values kept', { 'sk-live-abcdefghijkl': 1, 'sk-live-mnopqrstuvwx': 2 }, { [R]: 1, [`${R}#2`]: 2 }],
    ['a key spelled as the mark, before a token key', { [R]: 'plain', 'sk-live-abcdefghijkl': 'token' }, { [R]: 'plain', [`${R}#2`]: 'token' }],
    ['a key spelled as the mark, after a token key', { 'sk-live-abcdefghijkl': 'token', [R]: 'plain' }, { [R]: 'token', [`${R}#2`]: 'plain' }],
    ['a taken suffix is stepped over', { [`${R}#2`]: 'a', 'sk-live-abcdefghijkl': 'b', 'sk-live-mnopqrstuvwx': 'c' }, { [`${R}#2`]: 'a', [R]: 'b', [`${R}#3`]: 'c' }],
    ['ordinary keys', { 'x-request-id': 'r1', 'Bearer-ish': 2 }, { 'x-request-id': 'r1', 'Bearer-ish': 2 }],
    ['a long key (not memoised) holding a token', { [`${'k'.repeat(200)} sk-live-abcdefghijkl`]: 1 }, { [`${'k'.repeat(200)} ${R}`]: 1 }],
  ])('keys: %s', (_name, input, output) => {
    const out = redact(input) as Record<string, unknown>;
    expect(out).toEqual(output);
    expect(Object.keys(out)).toEqual(Object.keys(output));
  });

  it('keeps a "__proto__" key as a property of the copy, not its prototype', () => {
    const input = JSON.parse('{"__proto__": {"polluted": "sk-live-abcdefghijkl"}, "a": 1}') as Record<string, unknown>;
    const out = redact(input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__', 'a']);
    expect(JSON.stringify(out)).toBe(`{"__proto__":{"polluted":"${R}"},"a":1}`);
  });

  it("an error's own enumerable name still stands for its name (no #2)", () => {
    class NamedError extends Error {
      constructor(message: string) {
        super(message);
        this.name = 'NamedError';
      }
    }
    expect(redact(new NamedError('boom'))).toEqual({ name: 'NamedError', message: 'boom' });
  });

  it.each([[42], [true], [null], [undefined]])('leaves %j as it is', (v) => {
    expect(redact(v)).toBe(v);
  });

  it('leaves non-text objects as they are', () => {
    const date = new Date(0);
    expect(redact({ date }).date).toBe(date);
  });
});
