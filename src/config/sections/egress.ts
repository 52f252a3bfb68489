/**
 * The `egress` section: where the `http` providers may connect, and what a
 * redirect to another origin does with credentials. It goes to the runtime's
 * provider environment (see {@link providerEnvironment} in ./runtime.ts).
 *
 * Without the section each http provider may reach only the hosts of its own
 * `baseUrl` and `healthUrl`. With it, `allow` is the whole policy: the list
 * replaces those defaults, so it must be given. Each entry is checked by the
 * parser the EgressGuard itself uses, so what the config accepts the guard
 * accepts.
 * @module
 */
import { Type } from '@sinclair/typebox';
import { joinPointer } from '../../model/diagnostics.js';
import { EgressGuard } from '../../runtime/containment/egress.js';
import type { CrossOriginRedirects } from '../../runtime/containment/redirects.js';
import type { ConfigReading } from '../reading.js';

/** What a redirect to another origin may do (containment/redirects.ts owns the type): follow it without credentials, or refuse it. */
export const CROSS_ORIGIN_REDIRECTS = ['drop-credentials', 'refuse'] as const satisfies readonly CrossOriginRedirects[];

/** The `egress` section, as read. */
export interface EgressConfig {
  /** Host names, `*.domain`, `*`, IP addresses and CIDRs HTTP requests may reach. */
  allow: string[];
  /** @default 'drop-credentials' */
  crossOriginRedirects?: CrossOriginRedirects;
}

/** `egress`: the hosts, wildcards, IPs and CIDRs http providers may reach, and cross-origin redirects. */
export const EgressSchema = Type.Object(
  {
    allow: Type.Array(Type.String({ minLength: 1, pattern: '^[^\\s/]+(/\\d{1,3})?$' }), {
      description: 'Hosts (api.example.com), *.domain, *, IPs and CIDRs (10.0.0.0/8) http providers may reach; replaces the default (each provider\'s own baseUrl host). Link-local and metadata addresses only when listed by address.',
    }),
    crossOriginRedirects: Type.Optional(
      Type.Unsafe<CrossOriginRedirects>({ type: 'string', enum: [...CROSS_ORIGIN_REDIRECTS], default: 'drop-credentials', description: 'A redirect to another origin: followed without credentials, or refused.' }),
    ),
  },
  { required: ['allow'], additionalProperties: false, description: 'Where http providers may connect (docs/security.md).' },
);

/** Is `entry` one the egress guard accepts? Asked of the guard itself, so the two never disagree. */
function isEgressEntry(entry: string): boolean {
  try {
    new EgressGuard({ allow: [entry] });
    return true;
  } catch (error) {
    if (error instanceof TypeError) return false;
    throw error;
  }
}

/** Read `egress` (optional); undefined when absent or when `allow` is missing. */
export function readEgress(reading: ConfigReading): EgressConfig | undefined {
  const egressReader = reading.top.object('egress');
  if (!egressReader) return undefined;
  if (!egressReader.has('allow')) {
    reading.report('MISSING_FIELD', 'egress needs "allow": the list replaces the default hosts.', egressReader.pointer, {
      hint: "List every host the http providers may reach (allow: [api.example.com, '*.example.org']), or drop the section to allow each provider its own baseUrl host.",
    });
  }
  const allow = egressReader.strings('allow')?.filter((entry, i) => {
    if (entry.trim() !== '' && isEgressEntry(entry)) return true;
    reading.report('INVALID_VALUE', `"${entry}" is not a host name, *.domain, IP address or CIDR.`, joinPointer(egressReader.at('allow'), i), {
      hint: 'Write api.example.com, *.example.com, 203.0.113.7 or 10.0.0.0/8 (no scheme, port or path).',
    });
    return false;
  });
  const crossOriginRedirects = egressReader.enumValue('crossOriginRedirects', CROSS_ORIGIN_REDIRECTS);
  egressReader.rest({ where: 'egress (known: allow, crossOriginRedirects)' });
  if (allow === undefined) return undefined;
  return { allow, ...(crossOriginRedirects ? { crossOriginRedirects } : {}) };
}
