/**
 * Shinkai `oauth[]`: each service checked against the values Shinkai
 * accepts, and the tool-level auth facts that follow from it.
 * @module
 */
import { joinPointer } from '../../model/diagnostics.js';
import { compactRequired } from '../../model/objects.js';
import type { Auth } from '../../model/schema.js';
import { jsonType, ObjectReader } from '../../source/reader.js';
import type { ItemLeftovers } from './extension.js';

export type OAuth = NonNullable<Auth['oauth']>[number];

/** The only OAuth version Shinkai speaks. */
const OAUTH_VERSION = '2.0';
const RESPONSE_TYPES = ['code'] as const;
const PKCE_TYPES = ['plain', 'S256'] as const;
const TOKEN_AUTH_HEADERS = ['basic'] as const;

/**
 * Read `oauth` as a list of services. Items that are not objects are reported
 * and skipped; unknown keys of an item go to `leftovers` under "/oauth/<i>",
 * `i` being the item's index in the returned list.
 */
export function readOAuthList(reader: ObjectReader, leftovers: ItemLeftovers): OAuth[] | undefined {
  const list = reader.array('oauth');
  if (list === undefined) return undefined;
  const out: OAuth[] = [];
  list.forEach((item, i) => {
    const itemReader = ObjectReader.of(reader.context, item, joinPointer(reader.at('oauth'), i), `"oauth[${i}]"`);
    if (!itemReader) return;
    const oauth = readOAuth(itemReader);
    const rest = itemReader.rest({ where: `oauth[${i}]` });
    if (rest) leftovers[`/oauth/${out.length}`] = rest;
    out.push(oauth);
  });
  return out;
}

function readOAuth(r: ObjectReader): OAuth {
  return compactRequired<OAuth>({
    name: r.string('name'),
    version: readVersion(r),
    authorizationUrl: r.string('authorizationUrl'),
    redirectUrl: r.string('redirectUrl'),
    tokenUrl: r.string('tokenUrl'),
    clientId: r.string('clientId'),
    clientSecret: readSecret(r),
    scopes: r.strings('scopes'),
    responseType: r.enumValue('responseType', RESPONSE_TYPES),
    refreshToken: readRefreshToken(r),
    pkceType: r.enumValue('pkceType', PKCE_TYPES),
    requestTokenContentType: r.string('requestTokenContentType'),
    requestTokenAuthHeader: r.enumValue('requestTokenAuthHeader', TOKEN_AUTH_HEADERS),
  });
}

function readVersion(r: ObjectReader): string | undefined {
  const version = r.string('version');
  if (version === undefined || version === OAUTH_VERSION) return version;
  r.context.report('INVALID_VALUE', `"version" is "${version}"; Shinkai supports OAuth "${OAUTH_VERSION}" only.`, r.at('version'), {
    hint: `Write "version": "${OAUTH_VERSION}".`,
  });
  return undefined;
}

/**
 * A secret in a manifest ends up in version control and in every registry
 * snapshot. It is a warning, not an error, and the value is kept: the round
 * trip must give back what was written, and the tool still works.
 */
function readSecret(r: ObjectReader): string | undefined {
  const secret = r.string('clientSecret');
  if (secret !== undefined && secret !== '') {
    r.context.report('INVALID_VALUE', '"clientSecret" holds a secret in the manifest.', r.at('clientSecret'), {
      severity: 'warning',
      hint: 'Leave clientSecret empty here and provide it from an environment variable or a secret store.',
    });
  }
  return secret;
}

/** Shinkai writes `"true"`; JSON authors often write `true`. Both are kept as written. */
function readRefreshToken(r: ObjectReader): string | boolean | undefined {
  const value = r.raw('refreshToken');
  if (value === undefined || typeof value === 'string' || typeof value === 'boolean') return value;
  r.context.report('TYPE_MISMATCH', `"refreshToken" must be "true" or a boolean, not ${jsonType(value)}.`, r.at('refreshToken'), {
    hint: 'Write "refreshToken": "true".',
  });
  return undefined;
}

/**
 * Canonical `auth` for a list of services. A non-empty list means the tool
 * needs OAuth 2 credentials with the union of the services' scopes; those
 * three facts are inferred, not written, so they are listed as derived.
 */
export function authFromOAuth(oauth: OAuth[] | undefined): { auth?: Auth; derived: string[] } {
  if (oauth === undefined) return { derived: [] };
  if (oauth.length === 0) return { auth: { oauth }, derived: [] };
  const scopes = [...new Set(oauth.flatMap((service) => service.scopes ?? []))];
  const auth: Auth = { required: true, type: 'oauth2', ...(scopes.length > 0 ? { scopes } : {}), oauth };
  return { auth, derived: ['auth.required', 'auth.type', ...(scopes.length > 0 ? ['auth.scopes'] : [])] };
}
