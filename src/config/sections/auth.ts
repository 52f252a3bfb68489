/**
 * The `auth` section: who may talk to a served toolcap. Credentials (API
 * keys from the store, OIDC/JWT bearer tokens), grants by principal id, the
 * per-principal call limit, and the one local principal every request is
 * when no credentials are configured ("local mode", loopback only). It maps
 * onto the runtime's {@link AuthConfig}; `config/identity.ts` puts it to work.
 * @module
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { ApproverGrants, Role } from '../../runtime/identity/principal.js';
import { ALL, ROLES } from '../../runtime/identity/principal.js';
import type { AuthConfig, OidcConfig, StaticGrant } from '../../runtime/identity/auth-config.js';
import type { RateLimitConfig } from '../../runtime/identity/rate-limit.js';
import type { ObjectReader } from '../../source/reader.js';
import type { ConfigReading } from '../reading.js';
import { PERSONA_NAME, PERSONA_PATTERN } from './personas.js';
import { ConsoleLoginSchema, readConsoleLogin, type ConsoleLoginConfig } from './console-login.js';

/** The principal of local mode (and of `toolcap mcp serve` and direct-store commands). */
export interface LocalPrincipalConfig {
  /** Its id, as the audit log shows it. @default 'local' */
  principal: string;
  /** @default ['admin'] */
  roles: Role[];
  /** @default ['*'] */
  personas: string[];
  /** The persona of a request that names none. @default none (shared tools) */
  defaultPersona?: string;
}

/** The `auth` section, read. */
export interface AuthSection {
  /** Credentials are checked: `apiKeys.enabled: true` or `oidc` given. false: local mode. */
  enabled: boolean;
  /** What the Authenticator is given (API keys on only when enabled explicitly). */
  config: AuthConfig;
  local: LocalPrincipalConfig;
  /** The call limit was written in the config (local mode then limits too). */
  rateLimitSet: boolean;
  /** `auth.oidc.console`: the web console's client for browser sign-in. */
  consoleLogin?: ConsoleLoginConfig;
}

/** @default { principal: 'local', roles: ['admin'], personas: ['*'] } */
export const DEFAULT_LOCAL_PRINCIPAL: LocalPrincipalConfig = { principal: 'local', roles: ['admin'], personas: [ALL] };

/** A persona name, or `*` (every persona). */
const PERSONA_OR_ALL = `^(?:${PERSONA_PATTERN.slice(1, -1)}|\\*)$`;
const RoleList = Type.Array(Type.Unsafe<Role>({ type: 'string', enum: [...ROLES] }));
const PersonaList = Type.Array(Type.String({ pattern: PERSONA_OR_ALL }));
const Persona = Type.String({ pattern: PERSONA_PATTERN });
const HttpUrl = (description: string) => Type.String({ pattern: '^https?://\\S+$', description });
const MapOf = <T extends TSchema>(value: T) => Type.Record(Type.String({ minLength: 1 }), value);

/** `auth`: credentials, grants, the call limit and the local principal. */
export const AuthSchema = Type.Object(
  {
    local: Type.Optional(
      Type.Object(
        { principal: Type.Optional(Type.String({ minLength: 1 })), roles: Type.Optional(RoleList), personas: Type.Optional(PersonaList), defaultPersona: Type.Optional(Persona) },
        { additionalProperties: false, description: 'The principal of local mode (no credentials configured), of toolcap mcp serve and of direct-store commands.' },
      ),
    ),
    apiKeys: Type.Optional(
      Type.Object(
        { enabled: Type.Optional(Type.Boolean()), touchIntervalMs: Type.Optional(Type.Integer({ minimum: 0 })) },
        { additionalProperties: false, description: 'API keys (toolcap keys create); accepted only with enabled: true.' },
      ),
    ),
    oidc: Type.Optional(
      Type.Object(
        {
          issuer: HttpUrl('The issuer, exactly as in the tokens\' iss.'),
          audience: Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })]),
          jwksUri: Type.Optional(HttpUrl('Default: discovered from the issuer.')),
          algorithms: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
          clockToleranceSec: Type.Optional(Type.Integer({ minimum: 0, maximum: 3600 })),
          jwksTimeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
          principalClaim: Type.Optional(Type.String({ minLength: 1 })),
          rolesClaim: Type.Optional(Type.String({ minLength: 1 })),
          personasClaim: Type.Optional(Type.String({ minLength: 1 })),
          defaultPersonaClaim: Type.Optional(Type.String({ minLength: 1 })),
          defaultRoles: Type.Optional(RoleList),
          console: Type.Optional(ConsoleLoginSchema),
        },
        { additionalProperties: false },
      ),
    ),
    principals: Type.Optional(
      MapOf(
        Type.Object(
          {
            roles: Type.Optional(RoleList),
            personas: Type.Optional(PersonaList),
            defaultPersona: Type.Optional(Persona),
            approves: Type.Optional(Type.Object({ personas: PersonaList, tools: Type.Array(Type.String({ minLength: 1 })) }, { additionalProperties: false })),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    rateLimit: Type.Optional(
      Type.Object(
        { points: Type.Optional(Type.Integer({ minimum: 0 })), durationSec: Type.Optional(Type.Integer({ minimum: 1 })), principals: Type.Optional(MapOf(Type.Integer({ minimum: 0 }))) },
        { additionalProperties: false, description: 'Calls per principal per window (default 60 per 60 s when auth is on; 0: no limit).' },
      ),
    ),
  },
  { additionalProperties: false, description: 'Who may use a served toolcap; without it, local mode (docs/security.md).' },
);

/** Read `auth` (optional). Without it: local mode with {@link DEFAULT_LOCAL_PRINCIPAL}. */
export function readAuth(reading: ConfigReading): AuthSection {
  const none: AuthSection = { enabled: false, config: {}, local: { ...DEFAULT_LOCAL_PRINCIPAL, roles: [...DEFAULT_LOCAL_PRINCIPAL.roles], personas: [...DEFAULT_LOCAL_PRINCIPAL.personas] }, rateLimitSet: false };
  const authReader = reading.top.object('auth');
  if (!authReader) return none;
  const grants = grantReader(reading);
  const localReader = authReader.object('local');
  const local = { ...none.local };
  if (localReader) {
    const id = nonEmpty(reading, localReader, 'principal');
    if (id !== undefined) local.principal = id;
    const g = grants(localReader, 'the local principal', ['principal']);
    if (g.roles) local.roles = g.roles;
    if (g.personas) local.personas = g.personas;
    if (g.defaultPersona !== undefined) local.defaultPersona = g.defaultPersona;
  }
  const config: AuthConfig = {};
  const keysReader = authReader.object('apiKeys');
  const keysOn = keysReader?.boolean('enabled') === true;
  if (keysReader) {
    const touch = keysReader.number('touchIntervalMs', { integer: true, min: 0 });
    config.apiKeys = { enabled: keysOn, ...(touch !== undefined ? { touchIntervalMs: touch } : {}) };
    keysReader.rest({ where: 'auth.apiKeys (known: enabled, touchIntervalMs)' });
  } else config.apiKeys = { enabled: false };
  let consoleLogin: ConsoleLoginConfig | undefined;
  const oidc = readOidc(reading, authReader, (login) => (consoleLogin = login));
  if (oidc) config.oidc = oidc;
  const principalsReader = authReader.object('principals');
  if (principalsReader) {
    const principals: Record<string, StaticGrant> = {};
    for (const id of Object.keys(principalsReader.value)) {
      const pr = principalsReader.object(id);
      if (pr) principals[id] = grants(pr, `principal "${id}"`, []);
    }
    config.principals = principals;
  }
  const rateLimit = readRateLimit(authReader);
  if (rateLimit) config.rateLimit = rateLimit;
  authReader.rest({ where: 'auth (known: local, apiKeys, oidc, principals, rateLimit)' });
  return { enabled: keysOn || oidc !== undefined, config, local, rateLimitSet: rateLimit !== undefined, ...(oidc && consoleLogin ? { consoleLogin } : {}) };
}

function nonEmpty(reading: ConfigReading, reader: ObjectReader, key: string): string | undefined {
  const v = reader.string(key);
  if (v === undefined || v.trim() !== '') return v;
  reading.report('INVALID_VALUE', `"${key}" must not be empty.`, reader.at(key), {});
  return undefined;
}

/** A reader of grants (roles, personas, default persona, approver grants), shared by the local principal and `principals`. */
function grantReader(reading: ConfigReading) {
  const personaList = (reader: ObjectReader, key: string): string[] | undefined => {
    const list = reader.strings(key);
    list?.forEach((p, i) => {
      if (p !== ALL && !PERSONA_NAME.test(p)) reading.report('INVALID_VALUE', `"${p}" is not a persona name (or *).`, `${reader.at(key)}/${i}`, { hint: 'Persona names are matched exactly: letters, digits, _ . -' });
    });
    return list;
  };
  return (reader: ObjectReader, what: string, extra: string[]): StaticGrant => {
    const grant: StaticGrant = {};
    const roles = reader.enumValues('roles', ROLES);
    if (roles) grant.roles = roles;
    const personas = personaList(reader, 'personas');
    if (personas) grant.personas = personas;
    const def = reader.string('defaultPersona');
    if (def !== undefined) {
      if (!PERSONA_NAME.test(def)) reading.report('INVALID_VALUE', `The default persona "${def}" of ${what} is not a persona name.`, reader.at('defaultPersona'), {});
      else if (personas && !personas.includes(def) && !personas.includes(ALL)) reading.report('INVALID_VALUE', `The default persona "${def}" of ${what} is not one of its personas.`, reader.at('defaultPersona'), { hint: 'Add it to personas, or drop defaultPersona.' });
      else grant.defaultPersona = def;
    }
    const approvesReader = reader.object('approves');
    if (approvesReader) {
      const approves: ApproverGrants = { personas: personaList(approvesReader, 'personas') ?? [], tools: approvesReader.strings('tools') ?? [] };
      approvesReader.rest({ where: `the approver grants of ${what} (known: personas, tools)` });
      grant.approves = approves;
    }
    reader.rest({ where: `${what} (known: ${[...extra, 'roles', 'personas', 'defaultPersona', 'approves'].join(', ')})` });
    return grant;
  };
}

function readOidc(reading: ConfigReading, authReader: ObjectReader, onConsole: (login: ConsoleLoginConfig | undefined) => void): OidcConfig | undefined {
  const r = authReader.object('oidc');
  if (!r) return undefined;
  const url = (key: string) => {
    const v = r.string(key);
    if (v !== undefined && !/^https?:\/\/\S+$/.test(v)) {
      reading.report('INVALID_VALUE', `auth.oidc.${key} must be an http(s) URL.`, r.at(key), { hint: 'Write the issuer exactly as in the tokens\' iss claim, e.g. https://login.example.org/realms/main.' });
      return undefined;
    }
    return v;
  };
  const issuer = url('issuer');
  if (!r.has('issuer')) reading.report('MISSING_FIELD', 'auth.oidc needs "issuer".', r.pointer, { hint: 'Write issuer: https://login.example.org/realms/main.' });
  let audience: string | string[] | undefined;
  const rawAudience = r.raw('audience');
  if (typeof rawAudience === 'string' && rawAudience !== '') audience = rawAudience;
  else if (Array.isArray(rawAudience)) audience = r.strings('audience');
  if (rawAudience === undefined) reading.report('MISSING_FIELD', 'auth.oidc needs "audience": what tokens for this toolcap name in aud.', r.pointer, { hint: 'Write audience: https://toolcap.example.org.' });
  else if (audience === undefined || audience.length === 0) reading.report('TYPE_MISMATCH', '"audience" must be a string or a list of strings.', r.at('audience'), {});
  const oidc: Partial<OidcConfig> = {};
  const jwksUri = url('jwksUri');
  if (jwksUri !== undefined) oidc.jwksUri = jwksUri;
  const algorithms = r.strings('algorithms');
  if (algorithms) oidc.algorithms = algorithms;
  const skew = r.number('clockToleranceSec', { integer: true, min: 0, max: 3600 });
  if (skew !== undefined) oidc.clockToleranceSec = skew;
  const timeout = r.number('jwksTimeoutMs', { integer: true, min: 1 });
  if (timeout !== undefined) oidc.jwksTimeoutMs = timeout;
  for (const key of ['principalClaim', 'rolesClaim', 'personasClaim', 'defaultPersonaClaim'] as const) {
    const v = nonEmpty(reading, r, key);
    if (v !== undefined) oidc[key] = v;
  }
  const defaultRoles = r.enumValues('defaultRoles', ROLES);
  if (defaultRoles) oidc.defaultRoles = defaultRoles;
  const login = readConsoleLogin(reading, r);
  onConsole(login);
  if (login !== undefined && audience !== undefined && (Array.isArray(audience) ? audience : [audience]).includes(login.clientId)) {
    // an ID token names the client it was issued to in aud: every ID token the console receives would pass as an access token
    reading.report('INVALID_VALUE', `auth.oidc.audience names the console's client id ("${login.clientId}"): ID tokens issued to the console carry it in aud, so they would be accepted as access tokens.`, r.at('audience'), {
      severity: 'warning',
      hint: 'Give toolcap\'s API its own audience at the provider (a resource or API identifier, e.g. https://toolcap.example.org) and write that; set auth.oidc.console.resource to it so the console asks for it.',
    });
  }
  r.rest({ where: 'auth.oidc (known: issuer, audience, jwksUri, algorithms, clockToleranceSec, jwksTimeoutMs, principalClaim, rolesClaim, personasClaim, defaultPersonaClaim, defaultRoles, console)' });
  return issuer !== undefined && audience !== undefined && audience.length > 0 ? { ...oidc, issuer, audience } : undefined;
}

function readRateLimit(authReader: ObjectReader): RateLimitConfig | undefined {
  const r = authReader.object('rateLimit');
  if (!r) return undefined;
  const limit: RateLimitConfig = {};
  const points = r.number('points', { integer: true, min: 0 });
  if (points !== undefined) limit.points = points;
  const duration = r.number('durationSec', { integer: true, min: 1 });
  if (duration !== undefined) limit.durationSec = duration;
  const byPrincipal = r.object('principals');
  if (byPrincipal) {
    const principals: Record<string, number> = {};
    for (const id of Object.keys(byPrincipal.value)) {
      const n = byPrincipal.number(id, { integer: true, min: 0 });
      if (n !== undefined) principals[id] = n;
    }
    limit.principals = principals;
  }
  r.rest({ where: 'auth.rateLimit (known: points, durationSec, principals)' });
  return limit;
}
