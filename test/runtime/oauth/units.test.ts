/**
 * The small parts: the key (its formats, refusals that never echo it),
 * sealing (fresh IV, bound to its row, tamper-evident), the services a
 * manifest describes (Shinkai's switches read as Shinkai reads them), and
 * the command a refusal names.
 */
import { describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/model/schema.js';
import { parseSecretKey, sealedBox } from '../../../src/runtime/oauth/sealed-box.js';
import { clientSecretEnv, resolveService } from '../../../src/runtime/oauth/services.js';
import { connectCommand } from '../../../src/runtime/oauth/vault.js';
import { redirectTarget } from '../../../src/runtime/oauth/redirect-listener.js';

const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7));

describe('parseSecretKey', () => {
  it.each([
    ['base64', bytes.toString('base64')],
    ['base64url', bytes.toString('base64url')],
    ['hex', bytes.toString('hex')],
    ['hex with spaces around', `  ${bytes.toString('hex')}\n`],
  ])('reads %s', (_label, text) => {
    expect(parseSecretKey(text).equals(bytes)).toBe(true);
  });

  it.each([
    ['absent', undefined, 'missing', /MY_KEY is not set/],
    ['empty', '', 'missing', /MY_KEY is not set/],
    ['a passphrase', 'correct horse battery staple', 'invalid', /not a 256-bit key/],
    ['16 bytes', Buffer.alloc(16, 1).toString('base64'), 'invalid', /not a 256-bit key/],
    ['31 bytes hex', Buffer.alloc(31, 1).toString('hex'), 'invalid', /not a 256-bit key/],
  ])('refuses %s without echoing it', (_label, text, reason, message) => {
    let error: unknown;
    try {
      parseSecretKey(text, 'MY_KEY');
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ name: 'SecretKeyError', reason });
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toMatch(/openssl rand -base64 32/);
    if (text) expect((error as Error).message).not.toContain(text);
  });
});

describe('sealedBox', () => {
  const box = sealedBox(bytes);
  it('opens what it sealed, with a fresh IV each time', () => {
    const a = box.seal('secret value', 't\u0000s');
    const b = box.seal('secret value', 't\u0000s');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(box.open(a, 't\u0000s')).toBe('secret value');
  });

  it.each([
    ['another context', (s: string) => s, 'other\u0000s'],
    ['an altered ciphertext', (s: string) => s.replace(/\.([\w-])([\w-]*)\.([\w-]+)$/, (_m, c: string, rest: string, tag: string) => `.${c === 'A' ? 'B' : 'A'}${rest}.${tag}`), 't\u0000s'],
    ['an unknown format', () => 'v2.x.y.z', 't\u0000s'],
  ])('refuses %s', (_label, change, context) => {
    const sealed = change(box.seal('secret value', 't\u0000s'));
    expect(() => box.open(sealed, context)).toThrow(expect.objectContaining({ name: 'SecretKeyError', reason: 'mismatch' }));
  });
});

const toolWith = (oauth: Array<Record<string, unknown>>): Tool => ({ name: 'x.tool', auth: { oauth } }) as unknown as Tool;
const base = { name: 'gh', authorizationUrl: 'https://github.com/login/oauth/authorize', tokenUrl: 'https://github.com/login/oauth/access_token', clientId: 'abc' };

describe('resolveService', () => {
  it.each([
    ['defaults: JSON body, credentials in the body, no PKCE', {}, { tokenBody: 'json', clientAuth: 'body', pkce: undefined, refresh: false }],
    ['form body', { requestTokenContentType: 'application/x-www-form-urlencoded' }, { tokenBody: 'form' }],
    ['Basic header', { requestTokenAuthHeader: 'basic' }, { clientAuth: 'basic' }],
    ['refreshToken "true"', { refreshToken: 'true' }, { refresh: true }],
    ['refreshToken true', { refreshToken: true }, { refresh: true }],
    ['PKCE plain', { pkceType: 'plain' }, { pkce: 'plain' }],
  ])('%s', (_label, fields, expected) => {
    expect(resolveService(toolWith([{ ...base, ...fields }]), undefined, {})).toMatchObject(expected);
  });

  it('finds the client secret: the operator\'s variable first, then ${NAME}, then the manifest value', () => {
    expect(clientSecretEnv('google-calendar')).toBe('TOOLCAP_OAUTH_GOOGLE_CALENDAR_CLIENT_SECRET');
    expect(resolveService(toolWith([{ ...base, clientSecret: 'written' }]), 'gh', { TOOLCAP_OAUTH_GH_CLIENT_SECRET: 'from-env' }).clientSecret).toBe('from-env');
    expect(resolveService(toolWith([{ ...base, clientSecret: '${GH_SECRET}' }]), 'gh', { GH_SECRET: 'ref' }).clientSecret).toBe('ref');
    expect(resolveService(toolWith([{ ...base, clientSecret: 'written' }]), 'gh', {}).clientSecret).toBe('written');
    expect(resolveService(toolWith([{ ...base, clientSecret: '' }]), 'gh', {}).clientSecret).toBeUndefined();
  });

  it.each([
    ['no OAuth services', [], undefined, /declares no OAuth service/],
    ['two services and no --service', [base, { ...base, name: 'other' }], undefined, /has 2 OAuth services \(gh, other\): name one with --service/],
    ['an unknown service', [base], 'nope', /has no OAuth service "nope"; it has gh/],
    ['no tokenUrl', [{ ...base, tokenUrl: undefined }], undefined, /has no tokenUrl/],
    ['plain http to a remote host', [{ ...base, tokenUrl: 'http://example.com/token' }], undefined, /tokenUrl must be https/],
    ['an unknown content type', [{ ...base, requestTokenContentType: 'text/plain' }], undefined, /requestTokenContentType "text\/plain" is not supported/],
    ['an unknown PKCE method', [{ ...base, pkceType: 'S512' }], undefined, /pkceType "S512"/],
    ['an unset ${NAME}', [{ ...base, clientSecret: '${NOPE}' }], undefined, /refers to \$\{NOPE\}, which is not set/],
  ])('refuses %s', (_label, services, name, message) => {
    expect(() => resolveService(toolWith(services), name, {})).toThrow(message);
  });
});

describe('redirectTarget and connectCommand', () => {
  it.each([
    ['http://127.0.0.1:8765/cb', { port: 8765, path: '/cb', local: true }],
    ['http://localhost/oauth/callback', { port: 0, path: '/oauth/callback', local: true }],
    ['https://secrets.shinkai.com/redirect', { port: 0, path: '/callback', local: false }],
    [undefined, { port: 0, path: '/callback', local: false }],
  ])('%s', (url, expected) => {
    expect(redirectTarget(url)).toMatchObject(expected);
  });

  it('names the exact command', () => {
    expect(connectCommand('gmail.send', 'gmail')).toBe('toolcap oauth connect gmail.send --service gmail');
  });
});
