/**
 * Who is asking, as a config decides it: the local principal, whether
 * credentials are checked (an Authenticator over the store's keys and the
 * OIDC issuer) or every request is the local principal ("local mode",
 * loopback only), what the runtime is told (call limit, self-approval, the
 * personas config names), the Host and Origin names a bind address answers
 * to, and the one line a start banner prints about all that.
 * @module
 */
import { hostname, networkInterfaces } from 'node:os';
import { Authenticator, type AuthOutcome } from '../runtime/identity/authenticate.js';
import { ALL, type Principal } from '../runtime/identity/principal.js';
import type { RuntimeOptions } from '../runtime/runtime.js';
import type { ApiAuth } from '../server/auth.js';
import type { KeyStore } from '../store/types.js';
import type { ApprovalsConfig } from './sections/approvals.js';
import { DEFAULT_LOCAL_PRINCIPAL, type AuthSection, type LocalPrincipalConfig } from './sections/auth.js';

/** The config sections identity is made of (a `Config` is one). */
export interface IdentitySections {
  auth: AuthSection;
  approvals: ApprovalsConfig;
}

/** Local mode: no `auth` section, the default local principal, four eyes. */
export const LOCAL_MODE: IdentitySections = {
  auth: { enabled: false, config: {}, local: DEFAULT_LOCAL_PRINCIPAL, rateLimitSet: false },
  approvals: {},
};

/** Who is asking in a running toolcap. */
export interface Identity {
  /** `auth`: credentials are checked; `local`: every request is {@link local} (loopback binds only). */
  readonly mode: 'auth' | 'local';
  /** The local principal: local mode's requests, `toolcap mcp serve`, direct-store commands. */
  readonly local: Principal;
  /** Checks API keys and access tokens; undefined in local mode. */
  readonly authenticator: Authenticator | undefined;
  /** What the HTTP API authenticates with: the authenticator, or the local principal always. */
  readonly api: ApiAuth;
  /** Whether whoever asked may approve every approval (the config's `approvals.selfApproval`). */
  readonly selfApproval: boolean;
  /** One line for a start banner: the identity mode and whether self-approval is on. */
  describe(): string;
}

/** A principal from the config's `auth.local` (or the default), as `id` when given (`--principal`). */
export function localPrincipal(local: LocalPrincipalConfig = DEFAULT_LOCAL_PRINCIPAL, id?: string): Principal {
  return {
    id: id ?? local.principal,
    roles: [...local.roles],
    personas: [...local.personas],
    ...(local.defaultPersona !== undefined ? { defaultPersona: local.defaultPersona } : {}),
    via: 'local',
  };
}

/**
 * What the runtime is told about identity: the call limit (when auth is on,
 * or when the config sets one), global self-approval, and the persona names
 * the config grants (so a grant of a persona no manifest has yet is known).
 */
export function identityRuntimeOptions(sections: IdentitySections): Pick<RuntimeOptions, 'rateLimit' | 'selfApproval' | 'personas'> {
  const { auth, approvals } = sections;
  const grants = [auth.local.personas, ...Object.values(auth.config.principals ?? {}).flatMap((g) => [g.personas ?? [], g.approves?.personas ?? []])];
  const personas = [...new Set(grants.flat())].filter((p) => p !== ALL).sort();
  return {
    ...(auth.enabled || auth.rateLimitSet ? { rateLimit: auth.config.rateLimit ?? {} } : {}),
    ...(approvals.selfApproval !== undefined ? { selfApproval: approvals.selfApproval } : {}),
    ...(personas.length > 0 ? { personas } : {}),
  };
}

/**
 * The identity of a toolcap whose store keeps the API keys.
 * @example const identity = createIdentity(config, store); createApi(registry, { auth: identity.api })
 */
export function createIdentity(sections: IdentitySections, keys: Pick<KeyStore, 'getKey' | 'touchKey'>): Identity {
  const { auth, approvals } = sections;
  const local = localPrincipal(auth.local);
  const selfApproval = approvals.selfApproval === true;
  const selfRules = (approvals.rules ?? []).filter((r) => r.selfApproval === true).length;
  const authenticator = auth.enabled ? new Authenticator({ config: auth.config, keys }) : undefined;
  const oidc = auth.config.oidc;
  const api: ApiAuth = authenticator
    ? {
        authenticate: (request) => authenticator.authenticate(request.headers.get('authorization')),
        ...(oidc ? { resourceMetadata: { resource: [oidc.audience].flat()[0]!, authorizationServers: [oidc.issuer] } } : {}),
      }
    : { authenticate: (): Promise<AuthOutcome> => Promise.resolve({ ok: true, principal: local }) };
  return {
    mode: authenticator ? 'auth' : 'local',
    local,
    authenticator,
    api,
    selfApproval,
    describe() {
      const who = authenticator
        ? `auth: ${[auth.config.apiKeys?.enabled ? 'api keys' : undefined, oidc ? `oidc ${oidc.issuer}` : undefined].filter(Boolean).join(', ')}`
        : `identity: local mode, every request is principal "${local.id}" (${local.roles.join(', ')}; personas ${local.personas.join(', ') || 'none'})`;
      const approving = selfApproval
        ? 'self-approval ON (single-user: whoever asks may approve their own calls)'
        : selfRules > 0
          ? `four eyes, except self-approval for ${selfRules} rule${selfRules === 1 ? '' : 's'}`
          : 'four eyes (nobody approves their own calls)';
      return `${who}; approvals: ${approving}`;
    },
  };
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** Whether a bind address is loopback only (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || h === '::ffff:127.0.0.1';
}

/**
 * The Host and Origin names a bind address answers to by default: a
 * loopback bind its loopback names; a wildcard bind (0.0.0.0, ::) those,
 * the machine's name and every interface address; any other address itself.
 * Each with the port (Host headers of another port are refused).
 * @example bindNames('127.0.0.1', 4317).allowedHosts // ['127.0.0.1:4317', 'localhost:4317', '[::1]:4317']
 */
export function bindNames(host: string, port: number): { allowedHosts: string[]; allowedOrigins: string[] } {
  const bracket = (h: string) => (h.includes(':') && !h.startsWith('[') ? `[${h}]` : h);
  let names: string[];
  if (isLoopback(host)) names = LOOPBACK_NAMES;
  else if (host === '0.0.0.0' || host === '::' || host === '[::]') {
    const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.replace(/%.*$/, '')));
    names = [...LOOPBACK_NAMES, hostname(), ...addresses.map(bracket)];
  } else names = [bracket(host)];
  const allowedHosts = [...new Set(names)].map((n) => `${n}:${port}`);
  return { allowedHosts, allowedOrigins: allowedHosts.flatMap((h) => [`http://${h}`, `https://${h}`]) };
}

/**
 * The principal a local command acts as: the local principal, or (with an
 * id, e.g. `toolcap mcp serve --principal ci-bot`) that id with its grants
 * from `auth.principals` when it has some, else the local principal's grants.
 */
export function principalNamed(auth: AuthSection = LOCAL_MODE.auth, id?: string): Principal {
  const grant = id === undefined ? undefined : auth.config.principals?.[id];
  if (id === undefined || grant === undefined) return localPrincipal(auth.local, id);
  return {
    id,
    roles: [...(grant.roles ?? [])],
    personas: [...(grant.personas ?? [])],
    ...(grant.defaultPersona !== undefined ? { defaultPersona: grant.defaultPersona } : {}),
    ...(grant.approves ? { approves: grant.approves } : {}),
    via: 'local',
  };
}
