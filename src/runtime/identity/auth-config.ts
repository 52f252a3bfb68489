/**
 * The `auth` section of the configuration: which credentials are accepted
 * (API keys, OIDC/JWT bearer tokens), how token claims map to a principal,
 * static grants by principal id, and the per-principal call limit. The config
 * file reader hands this section over as is; {@link resolveAuthConfig}
 * merges the defaults once.
 * @module
 */
import type { ApproverGrants, Role } from './principal.js';
import { DEFAULT_RATE_LIMIT, type RateLimitConfig } from './rate-limit.js';

/** The `auth` section as written in the configuration file; every field is optional. */
export interface AuthConfig {
  /** API keys, sent as `Authorization: Bearer tcap_…` and kept (hashed) in the store. */
  apiKeys?: {
    /** Accept API keys. @default true */
    enabled?: boolean;
    /** Write a key's last use to the store at most this often, in ms (a busy key must not cost a write per call). @default 60000 */
    touchIntervalMs?: number;
  };
  /** OIDC / JWT bearer tokens checked against the issuer's JWKS. Absent: no tokens are accepted. */
  oidc?: OidcConfig;
  /**
   * Grants by principal id, added to what an OIDC token's claims grant (for
   * example approver grants, which tokens seldom carry). API keys carry their
   * own grants and are not widened by these.
   * @example { "alice@example.org": { roles: ["approver"], approves: { personas: ["*"], tools: ["github.*"] } } }
   */
  principals?: Record<string, StaticGrant>;
  /** Calls per principal per window; see {@link RateLimitConfig}. */
  rateLimit?: RateLimitConfig;
}

/** How OIDC tokens are checked and read. */
export interface OidcConfig {
  /** The issuer, exactly as in the token's `iss` (e.g. `https://login.example.org/realms/main`). */
  issuer: string;
  /** The audience (or audiences) a token must name in `aud`: this toolcap's resource identifier. */
  audience: string | string[];
  /** Where the issuer's signing keys are. @default discovered from `<issuer>/.well-known/openid-configuration` */
  jwksUri?: string;
  /** Signature algorithms accepted (asymmetric only: the keys come from the JWKS). @default ['RS256', 'PS256', 'ES256', 'EdDSA'] */
  algorithms?: string[];
  /** Clock skew allowed when checking `exp` and `nbf`, in seconds. @default 30 */
  clockToleranceSec?: number;
  /** How long to wait for the JWKS, in ms. @default 5000 */
  jwksTimeoutMs?: number;
  /** The claim holding the principal id (a dotted path reaches into objects). @default 'sub' */
  principalClaim?: string;
  /** The claim holding roles: an array, or a string separated by spaces or commas. @default 'roles' */
  rolesClaim?: string;
  /** The claim holding granted personas (array or separated string). @default 'personas' */
  personasClaim?: string;
  /** The claim holding the default persona. @default 'default_persona' */
  defaultPersonaClaim?: string;
  /** Roles of a token that carries none (and has no static grant). @default [] (it may do nothing) */
  defaultRoles?: Role[];
}

/** Roles, personas and approver grants given to a principal id by configuration. */
export interface StaticGrant {
  roles?: Role[];
  personas?: string[];
  defaultPersona?: string;
  approves?: ApproverGrants;
}

/** The OIDC settings with every default filled in. */
export type ResolvedOidcConfig = Required<Omit<OidcConfig, 'jwksUri'>> & Pick<OidcConfig, 'jwksUri'>;

/** The `auth` section with every default filled in. */
export interface ResolvedAuthConfig {
  apiKeys: { enabled: boolean; touchIntervalMs: number };
  oidc: ResolvedOidcConfig | undefined;
  principals: Record<string, StaticGrant>;
  rateLimit: Required<RateLimitConfig>;
}

/** Defaults of the OIDC settings (everything but issuer, audience and jwksUri). */
export const OIDC_DEFAULTS = {
  algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
  clockToleranceSec: 30,
  jwksTimeoutMs: 5000,
  principalClaim: 'sub',
  rolesClaim: 'roles',
  personasClaim: 'personas',
  defaultPersonaClaim: 'default_persona',
  defaultRoles: [],
} as const satisfies Omit<ResolvedOidcConfig, 'issuer' | 'audience' | 'jwksUri'>;

/** Defaults of the API key settings. */
export const API_KEY_DEFAULTS = { enabled: true, touchIntervalMs: 60_000 } as const satisfies ResolvedAuthConfig['apiKeys'];

/** Fill in every default of an `auth` section. */
export function resolveAuthConfig(config: AuthConfig = {}): ResolvedAuthConfig {
  const oidc = config.oidc
    ? ({
        ...OIDC_DEFAULTS,
        ...config.oidc,
        algorithms: [...(config.oidc.algorithms ?? OIDC_DEFAULTS.algorithms)],
        defaultRoles: [...(config.oidc.defaultRoles ?? OIDC_DEFAULTS.defaultRoles)],
      } satisfies ResolvedOidcConfig)
    : undefined;
  return {
    apiKeys: { ...API_KEY_DEFAULTS, ...config.apiKeys } satisfies ResolvedAuthConfig['apiKeys'],
    oidc,
    principals: { ...config.principals },
    rateLimit: { ...DEFAULT_RATE_LIMIT, ...config.rateLimit } satisfies Required<RateLimitConfig>,
  };
}
