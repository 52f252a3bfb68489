/**
 * The egress policy: which hosts a tool's HTTP requests may reach, checked
 * by name before a request and by address after DNS, right before connect.
 *
 * `allow` entries are host names (`api.example.com`), wildcards
 * (`*.example.com`: subdomains at any depth, not the apex; `*`: any host
 * name), IP addresses (`203.0.113.7`, `::1`) and CIDRs (`10.0.0.0/8`).
 *
 * Internal addresses are reached only when listed by address. Every DNS
 * answer is checked, and one loopback, link-local, private, reserved or
 * metadata answer refuses the host unless an IP or CIDR entry covers it: a
 * host-name entry never unlocks an internal address (so a default policy
 * built from manifests' base URLs cannot reach the metadata endpoint). A
 * metadata address needs an entry naming exactly it (a CIDR that merely
 * contains it is not enough), and a metadata host name (`metadata.google.internal`)
 * needs an exact host entry.
 *
 * {@link EgressGuard.resolve} returns the one checked address to connect
 * to; ./dispatcher.ts connects to exactly that address, so a DNS answer that
 * changes between check and connect (rebinding) is never used.
 * @module
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { addressKind, METADATA_HOSTS, sameAddress, unbracket, type AddressKind } from './address.js';

/** The egress section of the config. */
export interface EgressPolicy {
  /** Hosts, `*.domain` wildcards, `*`, IPs and CIDRs that may be reached. */
  allow: readonly string[];
}

/** Why a request was refused. */
export const EGRESS_REFUSALS = ['SCHEME', 'HOST_NOT_ALLOWED', 'METADATA_HOST', 'ADDRESS_NOT_ALLOWED', 'DNS_FAILED'] as const;
export type EgressRefusal = (typeof EGRESS_REFUSALS)[number];

/** A request the egress policy refuses. Nothing was sent. */
export class EgressError extends Error {
  override readonly name = 'EgressError';
  constructor(
    readonly code: EgressRefusal,
    message: string,
    readonly host: string,
    options?: ErrorOptions & { address?: string; kind?: AddressKind },
  ) {
    super(message, options);
    this.address = options?.address;
    this.kind = options?.kind;
  }
  /** The refused address, for ADDRESS_NOT_ALLOWED. */
  readonly address: string | undefined;
  readonly kind: AddressKind | undefined;
}

/** The outcome of a check by name. */
export type EgressDecision = { allowed: true } | { allowed: false; code: EgressRefusal; reason: string };

/** The checked address a connection must use. */
export interface PinnedAddress {
  host: string;
  address: string;
  family: 4 | 6;
  kind: AddressKind;
}

/** A DNS lookup returning every answer (node:dns/promises `lookup` with `all: true`). */
export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

interface ParsedPolicy {
  anyHost: boolean;
  hosts: Set<string>;
  suffixes: string[];
  addresses: string[];
  ranges: BlockList;
  invalid: string[];
}

function parsePolicy(policy: EgressPolicy): ParsedPolicy {
  const parsed: ParsedPolicy = { anyHost: false, hosts: new Set(), suffixes: [], addresses: [], ranges: new BlockList(), invalid: [] };
  for (const raw of policy.allow) {
    const lower = raw.trim().toLowerCase();
    const entry = unbracket(lower.endsWith('.') && !lower.endsWith('*.') ? lower.slice(0, -1) : lower);
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr) {
      const family = isIP(cidr[1] as string);
      const prefix = Number(cidr[2]);
      if (family === 0 || prefix > (family === 4 ? 32 : 128)) parsed.invalid.push(raw);
      else parsed.ranges.addSubnet(cidr[1] as string, prefix, family === 4 ? 'ipv4' : 'ipv6');
    } else if (isIP(entry) !== 0) parsed.addresses.push(entry);
    else if (entry === '*') parsed.anyHost = true;
    else if (entry.startsWith('*.') && entry.length > 2) parsed.suffixes.push(entry.slice(1));
    else if (/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(entry)) parsed.hosts.add(entry);
    else parsed.invalid.push(raw);
  }
  return parsed;
}

function hostOf(target: string | URL): { protocol: string; host: string } {
  const url = typeof target === 'string' ? new URL(target) : target;
  return { protocol: url.protocol, host: unbracket(url.hostname.toLowerCase().replace(/\.$/, '')) };
}

/**
 * An egress policy, ready to check URLs and resolve hosts.
 * @example
 * const guard = new EgressGuard({ allow: ['api.github.com', '*.slack.com'] });
 * guard.isAllowed('https://api.github.com/user'); // true
 * await guard.resolve('api.github.com'); // { address: '140.82.…', family: 4, … }
 */
export class EgressGuard {
  readonly #policy: ParsedPolicy;
  readonly #resolver: Resolver;

  /**
   * @param resolver DNS lookup returning all answers. @default node:dns/promises lookup
   * @throws TypeError when an entry is neither a host, wildcard, IP nor CIDR
   */
  constructor(policy: EgressPolicy, options: { resolver?: Resolver } = {}) {
    this.#policy = parsePolicy(policy);
    if (this.#policy.invalid.length > 0) throw new TypeError(`egress.allow: not a host, *.domain, IP or CIDR: ${this.#policy.invalid.join(', ')}`);
    this.#resolver = options.resolver ?? systemResolver;
  }

  /** Whether an IP or CIDR entry covers the address (exactly it, for metadata). */
  #addressListed(address: string, kind: AddressKind): boolean {
    if (this.#policy.addresses.some((a) => sameAddress(a, address))) return true;
    return kind !== 'metadata' && this.#policy.ranges.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');
  }

  /** Check a host (name or IP literal) by name only: no DNS. */
  checkHost(host: string): EgressDecision {
    const h = unbracket(host.toLowerCase().replace(/\.$/, ''));
    const kind = addressKind(h);
    if (kind !== undefined) {
      if (kind === 'public' && this.#policy.anyHost) return { allowed: true };
      return this.#addressListed(h, kind)
        ? { allowed: true }
        : { allowed: false, code: kind === 'public' ? 'HOST_NOT_ALLOWED' : 'ADDRESS_NOT_ALLOWED', reason: `${h} (${kind}) is not in egress.allow` };
    }
    if (this.#policy.hosts.has(h)) return { allowed: true };
    if (METADATA_HOSTS.includes(h)) return { allowed: false, code: 'METADATA_HOST', reason: `${h} is a cloud metadata host; only an exact egress.allow entry reaches it` };
    if (this.#policy.anyHost || this.#policy.suffixes.some((s) => h.endsWith(s))) return { allowed: true };
    return { allowed: false, code: 'HOST_NOT_ALLOWED', reason: `${h} is not in egress.allow` };
  }

  /** Check a URL by scheme and host name, before any DNS. */
  check(url: string | URL): EgressDecision {
    let parts: { protocol: string; host: string };
    try {
      parts = hostOf(url);
    } catch {
      return { allowed: false, code: 'SCHEME', reason: `not a URL: ${String(url)}` };
    }
    if (parts.protocol !== 'http:' && parts.protocol !== 'https:') return { allowed: false, code: 'SCHEME', reason: `${parts.protocol} URLs are not allowed; http and https only` };
    return this.checkHost(parts.host);
  }

  /** {@link check}, as a boolean. */
  isAllowed(url: string | URL): boolean {
    return this.check(url).allowed;
  }

  /**
   * Resolve a host and check every answer; the first answer is the address
   * to connect to. Throws an {@link EgressError} when the name is not
   * allowed, DNS fails, or any answer is an internal address not listed.
   */
  async resolve(host: string): Promise<PinnedAddress> {
    const h = unbracket(host.toLowerCase().replace(/\.$/, ''));
    const byName = this.checkHost(h);
    if (!byName.allowed) throw new EgressError(byName.code, byName.reason, h, isIP(h) ? { address: h } : {});
    let answers: Array<{ address: string; family: number }>;
    if (isIP(h) !== 0) answers = [{ address: h, family: isIP(h) }];
    else {
      try {
        answers = await this.#resolver(h);
      } catch (err) {
        throw new EgressError('DNS_FAILED', `cannot resolve ${h}: ${(err as { code?: string }).code ?? String(err)}`, h, { cause: err });
      }
      if (answers.length === 0) throw new EgressError('DNS_FAILED', `${h} has no address`, h);
    }
    for (const { address } of answers) {
      const kind = addressKind(address) ?? 'reserved';
      if (kind !== 'public' && !this.#addressListed(address, kind)) {
        throw new EgressError('ADDRESS_NOT_ALLOWED', `${h} resolves to ${address} (${kind}), which egress.allow does not list`, h, { address, kind });
      }
    }
    const first = answers[0] as { address: string; family: number };
    return { host: h, address: first.address, family: first.family === 6 ? 6 : 4, kind: addressKind(first.address) ?? 'reserved' };
  }
}

/**
 * The default allow list: the hosts of the given base URLs (from the
 * manifests, whose authors are trusted). A loopback or private IP literal a
 * manifest names itself (`http://127.0.0.1:4317`, `http://10.0.0.5`) is
 * allowed, as is `localhost` (as its loopback addresses): the author chose
 * that target. Link-local, metadata, unspecified and reserved addresses are
 * never allowed by default, and a host NAME still may not resolve to an
 * internal address (DNS rebinding): both take an explicit `egress.allow`
 * entry in the config.
 */
export function defaultEgressAllow(baseUrls: Iterable<string>): string[] {
  const hosts = new Set<string>();
  for (const raw of baseUrls) {
    let host: string;
    try {
      host = hostOf(raw).host;
    } catch {
      continue;
    }
    const kind = addressKind(host);
    if (kind === undefined) {
      if (METADATA_HOSTS.includes(host)) continue;
      if (host === 'localhost') hosts.add('127.0.0.1').add('::1');
      hosts.add(host);
    } else if (kind === 'public' || kind === 'loopback' || kind === 'private') hosts.add(host);
  }
  return [...hosts].sort();
}
