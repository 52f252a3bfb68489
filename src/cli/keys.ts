/**
 * `toolcap keys create|list|revoke`: API keys in the store the config
 * names. `create` prints the key once (the store keeps only its scrypt
 * hash, through issueApiKey); `list` never shows a secret; `revoke` ends a
 * key at once. A key works as `Authorization: Bearer <key>` once the config
 * turns API keys on (`auth: { apiKeys: { enabled: true } }`).
 * @module
 */
import { errorMessage } from '../model/errors.js';
import { defaultStoreConfig } from '../config/sections/store.js';
import { PERSONA_NAME } from '../config/sections/personas.js';
import { issueApiKey } from '../runtime/identity/api-keys.js';
import { ALL, isRole, ROLES, type Role } from '../runtime/identity/principal.js';
import { openStore } from '../store/open.js';
import type { KeyRecord, KeyStore, Store } from '../store/types.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import type { CliIO } from './io.js';
import { readPlan } from './open.js';
import type { LoadFlags } from './shared.js';

export interface KeysFlags extends LoadFlags {
  principal?: string;
  role?: string[];
  persona?: string[];
  defaultPersona?: string;
  approvesPersona?: string[];
  approvesTool?: string[];
  expires?: string;
  all?: boolean;
  json?: boolean;
}

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * When a key given `--expires` ends: a duration (`90m`, `12h`, `30d`) from
 * `now`, or an ISO date; undefined when it is neither.
 * @example expiryOf('30d', new Date('2025-01-01T00:00:00Z')) // '2025-01-31T00:00:00.000Z'
 */
export function expiryOf(text: string, now: Date): string | undefined {
  const m = /^(\d{1,5})([mhd])$/.exec(text);
  if (m) return new Date(now.getTime() + Number(m[1]) * UNITS[m[2]!]!).toISOString();
  const t = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(t) || t <= now.getTime() ? undefined : new Date(t).toISOString();
}

/** Open the config's store (keys need no catalog), run `body`, close it. */
async function withKeyStore(flags: LoadFlags, io: CliIO, body: (store: Store & KeyStore) => Promise<ExitCode>): Promise<ExitCode> {
  const plan = readPlan([], flags, io);
  if (typeof plan === 'number') return plan;
  const config = plan.config?.store ?? defaultStoreConfig(process.cwd());
  let store: Store & KeyStore;
  try {
    store = await openStore(config);
  } catch (error) {
    io.stderr(`toolcap: cannot open the store ${config.kind === 'sqlite' ? config.path : '(PostgreSQL)'}: ${errorMessage(error)}\n`);
    return EXIT.USAGE;
  }
  try {
    return await body(store);
  } finally {
    await store.close();
  }
}

/** Check the flags of `keys create`; the first problem, or undefined. */
function createProblem(flags: KeysFlags): string | undefined {
  if (flags.principal === undefined || flags.principal.trim() === '') return '--principal ID is required';
  const badRole = (flags.role ?? []).find((r) => !isRole(r));
  if (badRole !== undefined) return `--role: "${badRole}" is not one of ${ROLES.join(', ')}`;
  if ((flags.role ?? []).length === 0) return `give at least one --role (${ROLES.join(', ')})`;
  const personas = [...(flags.persona ?? []), ...(flags.approvesPersona ?? [])];
  const badPersona = personas.find((p) => p !== ALL && !PERSONA_NAME.test(p));
  if (badPersona !== undefined) return `"${badPersona}" is not a persona name (or *)`;
  if (flags.defaultPersona !== undefined && !(flags.persona ?? []).includes(flags.defaultPersona) && !(flags.persona ?? []).includes(ALL)) {
    return `--default-persona "${flags.defaultPersona}" must be one of the --persona grants`;
  }
  const approves = (flags.approvesPersona ?? []).length + (flags.approvesTool ?? []).length > 0;
  if (approves && !(flags.role ?? []).some((r) => r === 'approver' || r === 'admin')) return '--approves-persona and --approves-tool need --role approver';
  return undefined;
}

/** `toolcap keys create`: issue a key and print it once. */
export async function keysCreateCommand(flags: KeysFlags, io: CliIO): Promise<ExitCode> {
  const problem = createProblem(flags);
  const now = new Date();
  const expiresAt = flags.expires === undefined ? undefined : expiryOf(flags.expires, now);
  if (problem !== undefined || (flags.expires !== undefined && expiresAt === undefined)) {
    io.stderr(`toolcap: keys create: ${problem ?? `--expires: "${flags.expires}" is not a duration (90m, 12h, 30d) or a future ISO date`}\n`);
    return EXIT.USAGE;
  }
  const granted = [...new Set(flags.persona ?? [])];
  const defaultPersona = flags.defaultPersona ?? (granted.length === 1 && granted[0] !== ALL ? granted[0] : undefined);
  return withKeyStore(flags, io, async (store) => {
    const approving = (flags.approvesPersona ?? []).length + (flags.approvesTool ?? []).length > 0;
    const { token, record } = await issueApiKey(store, {
      principal: flags.principal!,
      roles: [...new Set(flags.role as Role[])],
      personas: granted,
      // one persona granted: it is the default too (a request without a persona means it); several: only when named
      ...(defaultPersona !== undefined ? { defaultPersona } : {}),
      ...(approving ? { approves: { personas: flags.approvesPersona ?? [], tools: flags.approvesTool ?? [ALL] } } : {}),
      ...(expiresAt !== undefined ? { expiresAt } : {}),
    }, { now });
    if (flags.json) io.stdout(`${JSON.stringify({ key: token, ...shown(record) }, null, 2)}\n`);
    else {
      io.stdout(`${token}\n`);
      io.stderr(`toolcap: key ${record.id} for principal "${record.principal}" (${record.roles.join(', ')}; personas ${record.personas.join(', ') || 'none'})${record.expiresAt ? `, expires ${record.expiresAt}` : ''}.\n`);
      io.stderr('  This is the only time the key is shown: the store keeps only its hash. Send it as Authorization: Bearer <key> (or TOOLCAP_API_KEY for --server).\n');
    }
    return EXIT.OK;
  });
}

/** `toolcap keys list`: keys without their secrets (hash and salt are not shown either). */
export async function keysListCommand(flags: KeysFlags, io: CliIO): Promise<ExitCode> {
  return withKeyStore(flags, io, async (store) => {
    const keys = await store.listKeys({ includeRevoked: flags.all === true, limit: 1000, ...(flags.principal !== undefined ? { principal: flags.principal } : {}) });
    if (flags.json) io.stdout(`${JSON.stringify({ keys: keys.map(shown) }, null, 2)}\n`);
    else if (keys.length === 0) io.stdout('No keys.\n');
    else
      for (const k of keys) {
        const state = k.revokedAt ? `revoked ${k.revokedAt}` : k.expiresAt && Date.parse(k.expiresAt) <= Date.now() ? `expired ${k.expiresAt}` : 'active';
        io.stdout(`${k.id}  ${k.principal}  ${k.roles.join(',')}  personas ${k.personas.join(',') || '-'}  ${state}  created ${k.createdAt}  last used ${k.lastUsedAt ?? 'never'}${k.expiresAt && state === 'active' ? `  expires ${k.expiresAt}` : ''}\n`);
      }
    return EXIT.OK;
  });
}

/** `toolcap keys revoke KEYID`: exit 1 when there is no such active key. */
export async function keysRevokeCommand(id: string, flags: KeysFlags, io: CliIO): Promise<ExitCode> {
  const keyId = /^tcap_([0-9a-f]{16})_/.exec(id)?.[1] ?? id;
  return withKeyStore(flags, io, async (store) => {
    const revoked = await store.revokeKey(keyId, new Date().toISOString());
    if (!revoked) {
      io.stderr(`toolcap: keys revoke: no active key "${keyId}" (see toolcap keys list --all)\n`);
      return EXIT.FINDINGS;
    }
    if (flags.json) io.stdout(`${JSON.stringify({ key: shown(revoked) }, null, 2)}\n`);
    else io.stdout(`Revoked ${revoked.id} (principal "${revoked.principal}").\n`);
    return EXIT.OK;
  });
}

/** A key as shown: everything but the hash, its salt and parameters. */
function shown({ hash: _h, salt: _s, params: _p, ...rest }: KeyRecord): Omit<KeyRecord, 'hash' | 'salt' | 'params'> {
  return rest;
}
