/**
 * `auth` from security requirements and schemes. The operation's `security`
 * overrides the document's; an empty list means no credentials.
 *
 * Requirements are alternatives; the first one that names a scheme is the one
 * mapped (an empty alternative `{}` makes credentials optional:
 * `auth.required: false`). Scheme types map as: apiKey -> api_key, http
 * bearer -> bearer, http basic -> basic, oauth2 and openIdConnect -> oauth2,
 * anything else -> other. `auth.scopes` are the scopes the requirement lists
 * (OpenAPI 3.1 allows them for any scheme); an OAuth 2 scheme also fills
 * `auth.oauth` with its URLs. API keys and bearer tokens get an environment
 * variable, `<API>_<SCHEME>` in upper snake case (see {@link envPrefix}); it is
 * a toolcap convention, so `auth.envs` is listed in `derived`.
 * @module
 */
import { joinPointer } from '../../model/diagnostics.js';
import { compact } from '../../model/objects.js';
import type { Auth } from '../../model/schema.js';
import type { AuthType } from '../../model/vocabulary.js';
import { isPlainObject, jsonType } from '../../source/reader.js';
import type { OpenApiDocument, Operation } from './document.js';
import { child, Place } from './refs.js';

/** The auth of a tool and whether its environment variables were derived. */
export interface AuthReading {
  auth: Auth;
  derivedEnvs: boolean;
}

/** Words that say nothing about which API a name belongs to. */
const GENERIC_WORDS = new Set(['api', 'apis', 'www', 'rest', 'swagger', 'openapi', 'the', 'web', 'http', 'https', 'service']);

/**
 * The prefix of environment variable names: the first telling word of
 * `info.title` ("GitHub v3 REST API" -> `GITHUB`, "Swagger Petstore" ->
 * `PETSTORE`), else the server's domain name (`api.stripe.com` -> `STRIPE`),
 * else `OPENAPI`.
 * @example envPrefix('https://api.stripe.com/', 'Stripe API') // 'STRIPE'
 */
export function envPrefix(server: string | undefined, title: string | undefined): string {
  const host = server?.match(/^[a-z][a-z0-9+.-]*:\/\/([^/:?#]+)/i)?.[1];
  const domain = host?.split('.').slice(-2, -1) ?? [];
  const words = (title ?? '').split(/[^A-Za-z0-9]+/);
  const telling = [...words, ...domain].find((w) => w !== '' && !GENERIC_WORDS.has(w.toLowerCase()) && !/^v?\d+$/i.test(w));
  return telling === undefined ? 'OPENAPI' : telling.toUpperCase();
}

function screaming(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
}

/** Reads security, caching the document-level reading (it applies to most operations). */
export class SecurityReader {
  #documentLevel: AuthReading | undefined | null = null;

  constructor(
    readonly doc: OpenApiDocument,
    readonly prefix: string,
  ) {}

  /** The auth of one operation, or undefined when neither it nor the document says anything. */
  of(op: Operation): AuthReading | undefined {
    if ('security' in op.value) return this.#read(op.value['security'], child(op.place, 'security'));
    if (this.#documentLevel === null) {
      this.#documentLevel = 'security' in this.doc.root ? this.#read(this.doc.root['security'], child(Place.ROOT, 'security')) : undefined;
    }
    return this.#documentLevel;
  }

  #read(value: unknown, place: Place): AuthReading | undefined {
    if (!Array.isArray(value)) {
      this.doc.refs.report(place, 'TYPE_MISMATCH', `"security" must be an array of requirement objects, not ${jsonType(value)}.`);
      return undefined;
    }
    if (value.length === 0) return { auth: { required: false, type: 'none' }, derivedEnvs: false };
    const optional = value.some((alt) => isPlainObject(alt) && Object.keys(alt).length === 0);
    const index = value.findIndex((alt) => isPlainObject(alt) && Object.keys(alt).length > 0);
    const chosen = value[index];
    if (!isPlainObject(chosen)) return { auth: { required: false, type: 'none' }, derivedEnvs: false };
    return this.#requirement(chosen, child(place, index), !optional);
  }

  /** One requirement object: every scheme it names applies together. */
  #requirement(requirement: Record<string, unknown>, place: Place, required: boolean): AuthReading {
    let type: AuthType | undefined;
    let docs: string | undefined;
    const scopes: string[] = [];
    const envs: NonNullable<Auth['envs']> = {};
    const oauth: NonNullable<Auth['oauth']> = [];
    for (const name of Object.keys(requirement)) {
      const listed = requirement[name];
      if (Array.isArray(listed)) for (const s of listed) if (typeof s === 'string' && !scopes.includes(s)) scopes.push(s);
      const scheme = this.#scheme(name, child(place, name));
      if (scheme === undefined) continue;
      const kind = schemeType(scheme);
      type ??= kind;
      if (docs === undefined && typeof scheme['description'] === 'string') docs = scheme['description'];
      if (kind === 'api_key' || kind === 'bearer') envs[this.#envName(name)] = compact({ required, description: envDescription(name, scheme) }) ?? {};
      if (kind === 'oauth2') oauth.push(oauthOf(name, scheme, this.doc.flavour, listed));
    }
    const auth = compact<Auth>({
      required,
      type,
      scopes: scopes.length > 0 ? scopes : undefined,
      envs: Object.keys(envs).length > 0 ? envs : undefined,
      oauth: oauth.length > 0 ? oauth : undefined,
      docs,
    }) ?? { required };
    return { auth, derivedEnvs: auth.envs !== undefined };
  }

  /** The scheme a requirement names; an undeclared name is REF_NOT_FOUND at the requirement. */
  #scheme(name: string, at: Place): Record<string, unknown> | undefined {
    const { root, flavour, refs } = this.doc;
    const container = flavour === '2.0' ? root['securityDefinitions'] : isPlainObject(root['components']) ? root['components']['securitySchemes'] : undefined;
    const declared = isPlainObject(container) && Object.prototype.hasOwnProperty.call(container, name) ? container[name] : undefined;
    const pointer = flavour === '2.0' ? joinPointer('/securityDefinitions', name) : joinPointer('/components/securitySchemes', name);
    const resolved = declared === undefined ? undefined : refs.deref(declared, Place.at('', pointer));
    if (resolved !== undefined && isPlainObject(resolved.value)) return resolved.value;
    if (declared === undefined) {
      const where = flavour === '2.0' ? 'securityDefinitions' : 'components.securitySchemes';
      refs.report(at, 'REF_NOT_FOUND', `Security scheme "${name}" is not declared in ${where}.`, `Declare "${name}" under ${where}, or fix the name.`);
    }
    return undefined;
  }

  #envName(scheme: string): string {
    const own = screaming(scheme) || 'CREDENTIAL';
    return own === this.prefix || own.startsWith(`${this.prefix}_`) ? own : `${this.prefix}_${own}`;
  }
}

function schemeType(scheme: Record<string, unknown>): AuthType {
  const type = scheme['type'];
  const http = typeof scheme['scheme'] === 'string' ? scheme['scheme'].toLowerCase() : '';
  if (type === 'apiKey') return 'api_key';
  if (type === 'basic' || (type === 'http' && http === 'basic')) return 'basic';
  if (type === 'http' && http === 'bearer') return 'bearer';
  if (type === 'oauth2' || type === 'openIdConnect') return 'oauth2';
  return 'other';
}

function envDescription(name: string, scheme: Record<string, unknown>): string {
  if (scheme['type'] === 'apiKey') return `API key for "${name}", sent in ${String(scheme['in'])} "${String(scheme['name'])}".`;
  return `Bearer token for "${name}".`;
}

/** The OAuth service of a scheme: its first flow's URLs and the scopes the operation asks for. */
function oauthOf(name: string, scheme: Record<string, unknown>, flavour: OpenApiDocument['flavour'], listed: unknown): NonNullable<Auth['oauth']>[number] {
  const flows = isPlainObject(scheme['flows']) ? Object.values(scheme['flows']).find(isPlainObject) : undefined;
  const source = flavour === '2.0' ? scheme : (flows ?? {});
  const url = (key: string) => (typeof source[key] === 'string' ? source[key] : undefined);
  const scopes = Array.isArray(listed) ? listed.filter((s): s is string => typeof s === 'string') : [];
  return (
    compact({
      name,
      authorizationUrl: url('authorizationUrl') ?? (typeof scheme['openIdConnectUrl'] === 'string' ? scheme['openIdConnectUrl'] : undefined),
      tokenUrl: url('tokenUrl'),
      scopes: scopes.length > 0 ? scopes : undefined,
    }) ?? { name }
  );
}
