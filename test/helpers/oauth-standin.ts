/**
 * A stand-in authorization server that records the shape of each token
 * request (content type, Authorization header, body fields) and checks
 * PKCE by either method. oidc-provider, the real server of the other tests,
 * speaks only form bodies and S256; Shinkai's JSON token body and `plain`
 * PKCE are observed here. `/authorize` approves at once (no login).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TokenRequestSeen {
  contentType: string | undefined;
  authorization: string | undefined;
  body: Record<string, string>;
}

export interface StandIn {
  origin: string;
  authorizationUrl: string;
  tokenUrl: string;
  /** Every token request, in order. */
  requests: TokenRequestSeen[];
  /** The code challenges the authorization requests carried. */
  challenges: Array<{ challenge: string | null; method: string | null }>;
  /** Make every refresh answer `invalid_grant` (a revoked refresh token). */
  revokeRefresh(): void;
  /** Hold refresh answers until release(); `arrived` resolves once `count` refresh requests are held (to line up concurrent refreshes). */
  holdRefreshes(count?: number): { arrived: Promise<void>; release(): void };
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startStandIn(options: { clientId: string; clientSecret?: string; expiresIn?: number }): Promise<StandIn> {
  const requests: TokenRequestSeen[] = [];
  const challenges: StandIn['challenges'] = [];
  const codes = new Map<string, { challenge: string | null; method: string | null; redirectUri: string }>();
  let revoked = false;
  let hold: Promise<void> | undefined;
  let onHeld: (() => void) | undefined;
  let n = 0;
  const server: Server = createServer((req, res) => {
    void (async (): Promise<void> => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/authorize') {
        const code = randomBytes(8).toString('hex');
        const challenge = url.searchParams.get('code_challenge');
        const method = url.searchParams.get('code_challenge_method');
        challenges.push({ challenge, method });
        codes.set(code, { challenge, method, redirectUri: url.searchParams.get('redirect_uri') ?? '' });
        const back = new URL(url.searchParams.get('redirect_uri') ?? '');
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { location: back.href }).end();
        return;
      }
      if (url.pathname !== '/token' || req.method !== 'POST') return void res.writeHead(404).end();
      const text = await readBody(req);
      const contentType = req.headers['content-type'];
      const body: Record<string, string> = contentType?.startsWith('application/json') ? (JSON.parse(text) as Record<string, string>) : Object.fromEntries(new URLSearchParams(text));
      requests.push({ contentType, authorization: req.headers.authorization, body });
      const fail = (error: string): void => void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
      // client authentication: Basic header or body, never both
      const basic = req.headers.authorization?.startsWith('Basic ') ? Buffer.from(req.headers.authorization.slice(6), 'base64').toString() : undefined;
      const id = basic !== undefined ? decodeURIComponent(basic.split(':')[0]!) : body.client_id;
      const secret = basic !== undefined ? decodeURIComponent(basic.split(':').slice(1).join(':')) : body.client_secret;
      if (id !== options.clientId || (options.clientSecret !== undefined && secret !== options.clientSecret)) return fail('invalid_client');
      if (body.grant_type === 'authorization_code') {
        const issued = codes.get(body.code ?? '');
        if (!issued || issued.redirectUri !== body.redirect_uri) return fail('invalid_grant');
        codes.delete(body.code!);
        if (issued.challenge !== null) {
          const verifier = body.code_verifier ?? '';
          const expected = issued.method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
          if (expected !== issued.challenge) return fail('invalid_grant');
        }
      } else if (body.grant_type === 'refresh_token') {
        if (hold) {
          onHeld?.();
          await hold;
        }
        if (revoked || !body.refresh_token?.startsWith('rt-')) return fail('invalid_grant');
      } else return fail('unsupported_grant_type');
      n += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({ access_token: `at-standin-${n}-${randomBytes(6).toString('hex')}`, token_type: 'bearer', expires_in: options.expiresIn ?? 3600, refresh_token: `rt-${n}-${randomBytes(6).toString('hex')}`, scope: 'read' }),
      );
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    authorizationUrl: `${origin}/authorize`,
    tokenUrl: `${origin}/token`,
    requests,
    challenges,
    revokeRefresh: () => void (revoked = true),
    holdRefreshes(count = 1) {
      let release!: () => void;
      let arrivedNow!: () => void;
      const arrived = new Promise<void>((r) => (arrivedNow = r));
      let seen = 0;
      onHeld = () => {
        if (++seen === count) arrivedNow();
      };
      hold = new Promise<void>((r) => (release = r));
      return { arrived, release: () => ((hold = undefined), (onHeld = undefined), release()) };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
