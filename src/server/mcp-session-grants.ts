/**
 * MCP sessions bound to the grants that opened them. The gateway fixes a
 * session's principal (roles, personas, approver grants) at `initialize` and
 * afterwards compares principal ids only, so a later request under the same
 * id but narrower grants (a second key of that principal, the key left after
 * the first was revoked, an OIDC token whose claims lost a persona) would
 * act with the opener's grants. `/mcp` therefore remembers, per session id it
 * handed out, what its opener was granted, and answers a request whose
 * principal is granted otherwise as the gateway answers an unknown session.
 * @module
 */
import type { Principal } from '../runtime/identity/principal.js';

/** What a principal is granted, as one comparable string (order of grants aside). */
export function grantsOf(principal: Principal): string {
  const sorted = (list: readonly string[] | undefined) => (list === undefined ? null : [...list].sort());
  return JSON.stringify([
    principal.id,
    principal.via,
    sorted(principal.roles),
    sorted(principal.personas),
    principal.defaultPersona ?? null,
    sorted(principal.approves?.personas),
    sorted(principal.approves?.tools),
  ]);
}

/**
 * Session id -> the grants of the principal that opened it, least recently
 * used forgotten first. A session id it does not know (never opened here,
 * or forgotten) matches nobody: the client initializes again.
 */
export class SessionGrants {
  readonly #grants = new Map<string, string>();

  /** @param capacity sessions remembered; well above the gateway's cap on open sessions (256 by default). */
  constructor(readonly capacity = 4096) {}

  /** Remember the session `id` the endpoint opened for `principal`. */
  opened(id: string, principal: Principal): void {
    this.#grants.delete(id);
    this.#grants.set(id, grantsOf(principal));
    if (this.#grants.size > this.capacity) this.#grants.delete(this.#grants.keys().next().value as string);
  }

  /** Whether `principal` holds exactly the grants session `id` was opened with (a use keeps it remembered). */
  matches(id: string, principal: Principal): boolean {
    const grants = this.#grants.get(id);
    if (grants === undefined || grants !== grantsOf(principal)) return false;
    this.#grants.delete(id);
    this.#grants.set(id, grants);
    return true;
  }

  /** Forget a session that was closed. */
  closed(id: string): void {
    this.#grants.delete(id);
  }
}

/** The answer the gateway gives for a session it does not have (JSON-RPC, 404), so a mismatch cannot be told from an unknown id. */
export function unknownSession(): Response {
  const body = { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found: it was closed, expired or never existed. Initialize a new one.' }, id: null };
  return new Response(JSON.stringify(body), { status: 404, headers: { 'content-type': 'application/json' } });
}
