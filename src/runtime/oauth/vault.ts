/**
 * OAuth connections at rest and at call time. {@link OAuthVault} seals
 * tokens into the store (sealed-box.ts: nothing is stored without a key),
 * says which tools are connected, and hands a call the access tokens of its
 * tool's services: refreshed first when expired (or about to) and a refresh
 * token is held, once for any number of concurrent calls in this process
 * and compare-and-set in the store across processes (a refresh that lost
 * the race uses the winner's tokens).
 *
 * Refusals are CallErrors naming the command that fixes them:
 * `OAUTH_NOT_CONNECTED` (no connection, no key, a key that does not open it,
 * an expired token without a refresh token) and `OAUTH_REFRESH_FAILED` (the
 * token endpoint refused the refresh token, e.g. it was revoked).
 * @module
 */
import type { Tool } from '../../model/schema.js';
import type { NewOAuthToken, OAuthTokenRecord, OAuthTokenStore } from '../../store/oauth-tokens.js';
import { StoreUnavailableError } from '../../store/types.js';
import { CallError } from '../errors.js';
import type { ProviderEgress, ProviderOAuthToken } from '../providers/types.js';
import { DEFAULT_SECRET_KEY_ENV, parseSecretKey, sealedBox, SecretKeyError, type SealedBox } from './sealed-box.js';
import { oauthServiceNames, OAuthSetupError, resolveService } from './services.js';
import { refreshTokens, TokenEndpointError, type TokenSet } from './token-client.js';

/** Options of {@link OAuthVault}. */
export interface OAuthVaultOptions {
  store: OAuthTokenStore;
  /** The key text (base64 or hex of 32 bytes); absent: nothing can be sealed or opened. */
  secretKey: string | undefined;
  /** Where the key comes from, for messages. @default 'TOOLCAP_SECRET_KEY' */
  secretKeyEnv?: string;
  /** Client secrets (`TOOLCAP_OAUTH_<SERVICE>_CLIENT_SECRET`, `${NAME}` references). @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** Hosts token requests may reach. @default each token URL's host */
  egress?: ProviderEgress;
  clock?: () => number;
  /** Refresh a token this long before it expires. @default 60000 */
  refreshSkewMs?: number;
}

/**
 * The command that connects a tool's service.
 * @example connectCommand('gmail.send', 'gmail') // 'toolcap oauth connect gmail.send --service gmail'
 */
export function connectCommand(tool: string, service: string): string {
  return `toolcap oauth connect ${tool} --service ${service}`;
}

/** Seals, opens, refreshes and forgets OAuth connections. */
export class OAuthVault {
  readonly #o: OAuthVaultOptions;
  #box: SealedBox | undefined;
  readonly #refreshing = new Map<string, Promise<TokenSet>>();

  constructor(options: OAuthVaultOptions) {
    this.#o = options;
  }

  get #env(): Readonly<Record<string, string | undefined>> {
    return this.#o.env ?? process.env;
  }

  get #clock(): () => number {
    return this.#o.clock ?? Date.now;
  }

  /** The box of the configured key; throws SecretKeyError when there is none or it is malformed. */
  box(): SealedBox {
    return (this.#box ??= sealedBox(parseSecretKey(this.#o.secretKey, this.#o.secretKeyEnv ?? DEFAULT_SECRET_KEY_ENV)));
  }

  /** Seal and store a connection's tokens (a new connection, or a reconnect). Throws SecretKeyError without a key. */
  async save(tool: string, service: string, tokens: TokenSet): Promise<OAuthTokenRecord> {
    return this.#o.store.putOAuthToken(this.#row(tool, service, tokens, undefined));
  }

  #row(tool: string, service: string, tokens: TokenSet, createdAt: string | undefined): NewOAuthToken {
    const now = new Date(this.#clock()).toISOString();
    return {
      tool,
      service,
      sealed: this.box().seal(JSON.stringify(tokens), contextOf(tool, service)),
      expiresAt: tokens.expiresAt ?? null,
      scope: tokens.scope ?? null,
      hasRefreshToken: tokens.refreshToken !== undefined,
      createdAt: createdAt ?? now,
      updatedAt: now,
    };
  }

  /** The stored connections (of one tool); needs no key: nothing secret is shown. */
  list(tool?: string): Promise<OAuthTokenRecord[]> {
    return this.#o.store.listOAuthTokens(tool === undefined ? {} : { tool });
  }

  /** Forget a tool's connection (one service, or all); resolves to how many were removed. */
  disconnect(tool: string, service?: string): Promise<number> {
    return this.#o.store.deleteOAuthToken(tool, service);
  }

  /** Refuse a call of a tool with an unconnected service before anything else happens (no key needed). */
  async check(tool: Tool): Promise<void> {
    for (const service of oauthServiceNames(tool)) {
      const row = await this.#stored(() => this.#o.store.getOAuthToken(tool.name, service));
      if (!row) throw notConnected(tool.name, service, `"${tool.name}" needs its OAuth service "${service}" connected, and it is not.`);
    }
  }

  /**
   * The access tokens of every OAuth service of `tool`, by service name, for
   * the provider; undefined when the tool uses no OAuth. Throws CallError.
   */
  async accessFor(tool: Tool, signal?: AbortSignal): Promise<Record<string, ProviderOAuthToken> | undefined> {
    const names = oauthServiceNames(tool);
    if (names.length === 0) return undefined;
    const out: Record<string, ProviderOAuthToken> = {};
    for (const service of names) {
      const tokens = await this.#current(tool, service, signal);
      out[service] = {
        accessToken: tokens.accessToken,
        tokenType: tokens.tokenType,
        ...(tokens.expiresAt !== undefined ? { expiresAt: tokens.expiresAt } : {}),
        ...(tokens.scope !== undefined ? { scope: tokens.scope } : {}),
      };
    }
    return out;
  }

  async #current(tool: Tool, service: string, signal: AbortSignal | undefined): Promise<TokenSet> {
    const row = await this.#stored(() => this.#o.store.getOAuthToken(tool.name, service));
    if (!row) throw notConnected(tool.name, service, `"${tool.name}" needs its OAuth service "${service}" connected, and it is not.`);
    const tokens = this.#open(tool.name, service, row);
    if (!this.#expired(tokens)) return tokens;
    if (tokens.refreshToken === undefined) throw notConnected(tool.name, service, `The OAuth access token of "${tool.name}" (service "${service}") has expired and there is no refresh token.`);
    const key = contextOf(tool.name, service);
    let pending = this.#refreshing.get(key);
    if (!pending) {
      pending = this.#refresh(tool, service, row, tokens, signal).finally(() => this.#refreshing.delete(key));
      this.#refreshing.set(key, pending);
    }
    return pending;
  }

  async #refresh(tool: Tool, service: string, row: OAuthTokenRecord, tokens: TokenSet, signal: AbortSignal | undefined): Promise<TokenSet> {
    let fresh: TokenSet;
    try {
      const resolved = resolveService(tool, service, this.#env);
      fresh = await refreshTokens(resolved, tokens, { ...(this.#o.egress ? { egress: this.#o.egress } : {}), ...(signal ? { signal } : {}), clock: this.#clock });
    } catch (error) {
      if (error instanceof OAuthSetupError) throw notConnected(tool.name, service, error.message);
      const why = error instanceof TokenEndpointError && error.oauthError === 'invalid_grant' ? 'the refresh token was refused (revoked or expired)' : error instanceof Error ? error.message : String(error);
      throw new CallError('OAUTH_REFRESH_FAILED', `Refreshing the OAuth token of "${tool.name}" (service "${service}") failed: ${why}. Reconnect: ${connectCommand(tool.name, service)}`, { command: connectCommand(tool.name, service) }, { cause: error });
    }
    const replaced = await this.#stored(() => this.#o.store.replaceOAuthToken(this.#row(tool.name, service, fresh, row.createdAt), row.revision));
    if (replaced) return fresh;
    // another process refreshed first: its tokens are the current ones
    const now = await this.#stored(() => this.#o.store.getOAuthToken(tool.name, service));
    if (!now) throw notConnected(tool.name, service, `The OAuth connection of "${tool.name}" (service "${service}") was removed while it was being refreshed.`);
    return this.#open(tool.name, service, now);
  }

  /** A store read or write at call time; the store being down is STORE_UNAVAILABLE (the call fails closed). */
  async #stored<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw new CallError('STORE_UNAVAILABLE', `The store is unavailable (${error.message}); tools with OAuth services cannot get their tokens until it is back.`, {}, { cause: error });
      throw error;
    }
  }

  #open(tool: string, service: string, row: OAuthTokenRecord): TokenSet {
    try {
      return JSON.parse(this.box().open(row.sealed, contextOf(tool, service))) as TokenSet;
    } catch (error) {
      if (error instanceof SecretKeyError) {
        const why = error.reason === 'mismatch' ? `${error.message} Connect it again.` : error.message;
        throw notConnected(tool, service, `The OAuth tokens of "${tool}" (service "${service}") cannot be read: ${why}`, error);
      }
      throw error;
    }
  }

  #expired(tokens: TokenSet): boolean {
    if (tokens.expiresAt === undefined) return false;
    return Date.parse(tokens.expiresAt) - (this.#o.refreshSkewMs ?? 60_000) <= this.#clock();
  }
}

/** The additional data a row's ciphertext is bound to. */
function contextOf(tool: string, service: string): string {
  return `${tool}\u0000${service}`;
}

function notConnected(tool: string, service: string, message: string, cause?: unknown): CallError {
  const command = connectCommand(tool, service);
  return new CallError('OAUTH_NOT_CONNECTED', `${message} Run: ${command}`, { command }, cause === undefined ? undefined : { cause });
}
