/**
 * Credentials: which environment variables a call needs set, checked before
 * anything runs. A provider entry needs what its type reads (the
 * `google_cse` key and engine id, the `serpapi` key, the `openai` key, the
 * `http` provider's `auth.env`) and what its config names (`requiredEnv`,
 * `*_env`/`*Env` keys). The tool's `auth.envs` entries marked
 * `required: true` that no provider claims are needed by every provider
 * (a `module` or `command` tool that reads `GITHUB_TOKEN` itself).
 *
 * A provider missing one is skipped (the router fails over); when every
 * runnable provider misses one, the call is refused with
 * MISSING_CREDENTIALS naming the variables (never their values), and the
 * tool's health is `unavailable`. ATLAS's search tool declares
 * `GOOGLE_API_KEY`/`GOOGLE_CSE_ID` required and `SERPAPI_KEY` optional:
 * the first two are `google_cse`'s, so a missing Google key moves the call
 * to `serpapi`, as the seed describes.
 * @module
 */
import type { Provider, Tool } from '../model/schema.js';
import { CallError } from './errors.js';
import { readHttpConfig } from './providers/http-config.js';
import { openAiKeyEnv } from './providers/http-aliases.js';
import type { ProviderSlot } from './providers/provider-types.js';
import { webSearchCredentialEnvs } from './providers/web-search.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The variables each provider entry of a tool needs, by entry name. */
export interface CredentialNeeds {
  byProvider: ReadonlyMap<string, readonly string[]>;
  /** Required by the tool's `auth.envs` and claimed by no provider: every provider needs them. */
  toolWide: readonly string[];
}

/** Top-level `requiredEnv` and `*_env`/`*Env` config keys (the router's long-standing rule). */
function configEnvNames(entry: Provider): string[] {
  const names: string[] = [];
  const config = entry.config ?? {};
  const required = config['requiredEnv'];
  if (Array.isArray(required)) for (const n of required) if (typeof n === 'string' && n !== '') names.push(n);
  for (const [key, value] of Object.entries(config)) if (/(_env|Env)$/.test(key) && key !== 'requiredEnv' && typeof value === 'string' && value !== '') names.push(value);
  return names;
}

/**
 * The variables a manifest entry names (`config.requiredEnv: [...]`, the
 * ATLAS convention of `*_env` keys) that are not set.
 * @example missingEnv({ name: 'google_cse', config: { api_key_env: 'GOOGLE_API_KEY' } }, {}) // ['GOOGLE_API_KEY']
 */
export function missingEnv(entry: Provider, env: Readonly<Record<string, string | undefined>>): string[] {
  return configEnvNames(entry).filter((n) => (env[n] ?? '') === '');
}

/** The variable the `http` entry sends as its credential, when its config is usable. */
function httpAuthEnv(entry: Provider, tool: Tool): string[] {
  try {
    const config = entry.config ?? {};
    const mapped = config['url'] !== undefined && config['baseUrl'] === undefined ? { ...entry, config: { ...config, baseUrl: config['url'] } } : entry;
    const env = readHttpConfig(mapped, tool).auth?.env;
    return env === undefined ? [] : [env];
  } catch {
    return [];
  }
}

/**
 * The environment variables one provider entry needs set, in order, once each.
 * @example providerCredentials({ name: 'google_cse' }, tool) // ['GOOGLE_API_KEY', 'GOOGLE_CSE_ID']
 */
export function providerCredentials(entry: Provider, tool: Tool): string[] {
  const declared = entry.config?.['type'];
  const type = typeof declared === 'string' && declared !== '' ? declared : entry.name;
  const own =
    type === 'google_cse' || type === 'serpapi'
      ? (webSearchCredentialEnvs(type, entry, tool) ?? [])
      : type === 'openai'
        ? [openAiKeyEnv(entry, tool)]
        : type === 'http' || type === 'internal_http_client'
          ? httpAuthEnv(entry, tool)
          : [];
  return [...new Set([...own, ...configEnvNames(entry)])];
}

const cache = new WeakMap<Tool, CredentialNeeds>();

/** The tool's `auth.envs` names marked `required: true` (none when `auth.required` is false). */
function requiredByTool(tool: Tool): string[] {
  if (tool.auth?.required === false) return [];
  return Object.entries(tool.auth?.envs ?? {})
    .filter(([, e]) => e.required === true)
    .map(([n]) => n);
}

/** What every provider of `tool` needs (cached per frozen tool). */
export function credentialNeeds(tool: Tool, entries: readonly Provider[] = tool.providers ?? []): CredentialNeeds {
  const cached = cache.get(tool);
  if (cached) return cached;
  const byProvider = new Map<string, string[]>();
  for (const entry of entries) byProvider.set(entry.name, providerCredentials(entry, tool));
  const claimed = new Set([...byProvider.values()].flat());
  const needs = { byProvider, toolWide: requiredByTool(tool).filter((n) => !claimed.has(n)) };
  if (Object.isFrozen(tool)) cache.set(tool, needs);
  return needs;
}

const unset = (env: Env) => (n: string) => (env[n] ?? '') === '';

/** The variables `provider` needs that are not set (empty counts as not set). */
export function missingCredentials(needs: CredentialNeeds, provider: string, env: Env): string[] {
  return [...new Set([...(needs.byProvider.get(provider) ?? []), ...needs.toolWide])].filter(unset(env));
}

/** `A is not set` / `A, B are not set`. */
export function notSetReason(missing: readonly string[]): string {
  return `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set`;
}

/**
 * MISSING_CREDENTIALS when every runnable provider of the tool (one with an
 * instance) misses a credential; undefined when some provider has what it
 * needs, or none is runnable for another reason.
 * @example const refusal = credentialRefusal(tool, slots, process.env); if (refusal) throw refusal;
 */
export function credentialRefusal(tool: Tool, slots: readonly ProviderSlot[], env: Env, callId?: string): CallError | undefined {
  const runnable = slots.filter((s) => s.instance);
  if (runnable.length === 0) return undefined;
  const needs = credentialNeeds(tool, slots.map((s) => s.entry));
  const missing = runnable.map((s) => ({ provider: s.entry.name, missing: missingCredentials(needs, s.entry.name, env) }));
  if (missing.some((m) => m.missing.length === 0)) return undefined;
  const names = [...new Set(missing.flatMap((m) => m.missing))].sort();
  const each = missing.map((m) => `${m.provider} needs ${m.missing.join(', ')}`).join('; ');
  return new CallError(
    'MISSING_CREDENTIALS',
    `"${tool.name}" cannot run: ${each}, and ${names.length === 1 ? 'it is' : 'they are'} not set. Set ${names.join(', ')} in toolcap's environment${tool.auth?.docs ? ` (${tool.auth.docs})` : ''}.`,
    { missing: names, providers: missing.map((m) => ({ provider: m.provider, outcome: notSetReason(m.missing) })), ...(callId !== undefined ? { callId } : {}) },
  );
}

/** Why a tool cannot run whatever was observed: every provider entry misses a credential. */
export interface Unavailable {
  reason: string;
  missingCredentials: string[];
}

/**
 * The health view of {@link credentialRefusal}, from the manifest alone (no
 * provider is made): undefined when some provider entry has its credentials.
 */
export function credentialUnavailable(tool: Tool, env: Env): Unavailable | undefined {
  const entries = tool.providers ?? [];
  if (entries.length === 0) return undefined;
  const needs = credentialNeeds(tool, entries);
  const missing = entries.map((e) => missingCredentials(needs, e.name, env));
  if (missing.some((m) => m.length === 0)) return undefined;
  const names = [...new Set(missing.flat())].sort();
  return { reason: `missing credentials: ${notSetReason(names)}`, missingCredentials: names };
}

/** Every variable any provider of the tool needs: secrets to redact. */
export function credentialNames(tool: Tool): string[] {
  const needs = credentialNeeds(tool);
  return [...new Set([...[...needs.byProvider.values()].flat(), ...needs.toolWide])];
}
