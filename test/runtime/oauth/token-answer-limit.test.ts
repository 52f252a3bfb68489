/**
 * A token endpoint's answer is read up to MAX_TOKEN_RESPONSE_BYTES: oauth4webapi
 * reads the whole body, so an endpoint that streams without end would fill
 * toolcap's memory. A normal answer, and an error answer, are read as before.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_TOKEN_RESPONSE_BYTES, refreshTokens, TokenEndpointError } from '../../../src/runtime/oauth/token-client.js';
import type { OAuthService } from '../../../src/runtime/oauth/services.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A token endpoint answering with `answer`; counts the bytes it managed to write. */
async function endpoint(answer: (res: import('node:http').ServerResponse) => void): Promise<{ service: OAuthService; written: () => number }> {
  let written = 0;
  const server = createServer((req, res) => {
    req.resume();
    const write = res.write.bind(res);
    res.write = ((chunk: Buffer | string, ...rest: unknown[]) => {
      written += Buffer.byteLength(chunk);
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof res.write;
    req.on('end', () => answer(res));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const service: OAuthService = {
    name: 'svc',
    authorizationUrl: new URL(`${base}/authorize`),
    tokenUrl: new URL(`${base}/token`),
    redirectUrl: undefined,
    clientId: 'c',
    clientSecret: 's',
    scopes: [],
    pkce: undefined,
    refresh: true,
    tokenBody: 'form',
    clientAuth: 'body',
  };
  return { service, written: () => written };
}

const current = { accessToken: 'old', tokenType: 'bearer', refreshToken: 'r1', issuer: 'http://127.0.0.1' };

describe('the token endpoint\'s answer', () => {
  it('a normal answer is read', async () => {
    const { service } = await endpoint((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: 'new', token_type: 'bearer', expires_in: 60 }));
    });
    const tokens = await refreshTokens({ ...service }, { ...current, issuer: service.authorizationUrl.origin });
    expect(tokens).toMatchObject({ accessToken: 'new', refreshToken: 'r1' });
  });

  it('an error answer keeps its OAuth error', async () => {
    const { service } = await endpoint((res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_grant', error_description: 'revoked' }));
    });
    await expect(refreshTokens(service, { ...current, issuer: service.authorizationUrl.origin })).rejects.toMatchObject({ name: 'TokenEndpointError', oauthError: 'invalid_grant' });
  });

  it.each([
    ['with a Content-Length over the limit', true],
    ['streamed without a length, without end', false],
  ])('one %s is refused at the limit, not read whole', async (_label, declared) => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const { service, written } = await endpoint((res) => {
      res.writeHead(200, { 'content-type': 'application/json', ...(declared ? { 'content-length': String(64 * 1024 * 1024) } : {}) });
      res.write('{"access_token":"');
      // keeps writing as long as the client reads (64 MiB at most)
      let left = 1024;
      const pump = () => {
        while (left-- > 0) if (!res.write(chunk)) return void res.once('drain', pump);
        res.end('"}');
      };
      res.on('error', () => undefined);
      pump();
    });
    const error = await refreshTokens(service, { ...current, issuer: service.authorizationUrl.origin }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenEndpointError);
    expect((error as Error).message).toContain(`over ${MAX_TOKEN_RESPONSE_BYTES} bytes`);
    // the client stopped reading near the limit (plus what the sockets buffer), far from the 64 MiB offered
    expect(written()).toBeLessThan(16 * 1024 * 1024);
  });
});
