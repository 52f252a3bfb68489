/**
 * The identity fixture's app (test/server/identity-fixture.ts) with the real
 * Authenticator and real API keys in its SQLite store, for the red-team
 * tables: what an attacker on 127.0.0.1 sends reaches the same header
 * parsing, key lookup and scrypt check as `toolcap serve`. Besides the
 * fixture's personas, "café" (NFC) is known (a persona of the config), and
 * ops.reverse asks first for persona ops, so an approval of persona ops
 * exists for an approver granted intern only.
 */
import { issueApiKey, type KeyGrant } from '../../src/runtime/identity/api-keys.js';
import { Authenticator } from '../../src/runtime/identity/authenticate.js';
import type { KeyStore } from '../../src/store/types.js';
import { identityApi, type IdentityApi } from './identity-fixture.js';

const CHEAP = { N: 1024, r: 8, p: 1, keyLength: 32 };

/** Who holds a key. */
export const GRANTS = {
  ops: { principal: 'ops-bot', roles: ['caller'], personas: ['ops'], defaultPersona: 'ops' },
  intern: { principal: 'intern-bot', roles: ['caller'], personas: ['intern'], defaultPersona: 'intern' },
  cafe: { principal: 'cafe-bot', roles: ['caller'], personas: ['café'], defaultPersona: 'café' },
  // decides intern's approvals only
  approver: { principal: 'reviewer', roles: ['approver'], personas: [], approves: { personas: ['intern'], tools: ['*'] } },
  admin: { principal: 'root', roles: ['admin'], personas: ['*'] },
  revoked: { principal: 'root', roles: ['admin'], personas: ['*'] },
} as const satisfies Record<string, KeyGrant>;

export type Holder = keyof typeof GRANTS;

export interface RedteamApi extends IdentityApi {
  /** The key each holder was issued (`revoked`'s is revoked). */
  keys: Record<Holder, { token: string; id: string }>;
}

/** Build the app, issue the keys, revoke one. */
export async function redteamApi(): Promise<RedteamApi> {
  let authenticator: Authenticator | undefined;
  const api = await identityApi(
    {
      rules: [
        { tools: ['text.reverse'], personas: ['intern'], reason: 'Interns ask first.' },
        { tools: ['ops.reverse'], personas: ['ops'], reason: 'Ops asks first here.' },
      ],
      personas: ['café'],
    },
    {
      auth: {
        authenticate: (request) => {
          if (!authenticator) throw new Error('keys not issued yet');
          return authenticator.authenticate(request.headers.get('authorization'));
        },
      },
    },
  );
  const store = api.store as typeof api.store & KeyStore;
  authenticator = new Authenticator({ keys: store });
  const keys = {} as RedteamApi['keys'];
  for (const [holder, grant] of Object.entries(GRANTS) as Array<[Holder, KeyGrant]>) {
    const { token, record } = await issueApiKey(store, grant, { params: CHEAP });
    keys[holder] = { token, id: record.id };
  }
  await store.revokeKey(keys.revoked.id, new Date().toISOString());
  return { ...api, keys };
}
