/**
 * The Streamable HTTP sessions of the gateway and their limits: each session
 * belongs to the principal that opened it (another principal asking for it
 * gets "no such session"), a principal may hold at most `maxPerPrincipal`
 * and the endpoint `maxTotal`, and a session with no request for `idleSec`
 * is closed by a sweep on an unref'd timer (so it never keeps a process up).
 * Without limits an unauthenticated loop opened 10,000 sessions in 17 s and
 * kept them all (issue 11).
 * @module
 */

/** Session limits of an MCP HTTP endpoint. */
export interface SessionLimits {
  /** Open sessions one authenticated principal may hold. @default 16 */
  maxPerPrincipal?: number;
  /** Open sessions in all. @default 256 */
  maxTotal?: number;
  /** A session with no request for this long is closed, seconds. @default 900 (15 min) */
  idleSec?: number;
}

/** The defaults of {@link SessionLimits}. */
export const SESSION_DEFAULTS: Readonly<Required<SessionLimits>> = { maxPerPrincipal: 16, maxTotal: 256, idleSec: 900 };

/** One open session: what it serves, who owns it, when it was last used. */
interface Entry<S> {
  session: S;
  /** The owning principal's id; undefined: opened without a principal (a trusted in-process caller). */
  owner: string | undefined;
  /** What the owner was granted when it opened the session (identity's grantsKey): a use under other grants is refused. */
  grants: string | undefined;
  lastUsed: number;
  /** Requests being answered now: a session answering one is not idle. */
  busy: number;
}

/** Why a session cannot be opened now. */
export type SessionRefusal = { reason: 'principal' | 'total'; limit: number };

/**
 * Open sessions by id, with their owners, caps and idle sweep. Opening is two
 * steps (reserve a slot, then add the id once the transport made one) so
 * concurrent `initialize` requests cannot overshoot a cap.
 */
export class SessionTable<S> {
  readonly #entries = new Map<string, Entry<S>>();
  /** Slots reserved by opens in progress, per owner key. */
  readonly #reserved = new Map<string, number>();
  readonly #limits: Required<SessionLimits>;
  readonly #clock: () => number;
  readonly #timer: ReturnType<typeof setInterval>;

  /** `expire` closes a session the sweep found idle (it is already out of the table). */
  constructor(limits: SessionLimits, expire: (session: S) => void, clock: () => number = Date.now) {
    this.#limits = { ...SESSION_DEFAULTS, ...limits };
    this.#clock = clock;
    const idleMs = this.#limits.idleSec * 1000;
    // sweep a few times per idle period, at least every minute: a session lives at most idleSec plus one sweep
    this.#timer = setInterval(() => this.#sweep(expire), Math.min(60_000, Math.max(10, idleMs / 4)));
    this.#timer.unref();
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Every open session. */
  sessions(): S[] {
    return [...this.#entries.values()].map((e) => e.session);
  }

  /** Reserve a slot for `owner`, or say which cap is full. Call {@link release} once the open is done, made or not. */
  reserve(owner: string | undefined): SessionRefusal | undefined {
    const reservedAll = [...this.#reserved.values()].reduce((a, b) => a + b, 0);
    if (this.#entries.size + reservedAll >= this.#limits.maxTotal) return { reason: 'total', limit: this.#limits.maxTotal };
    if (owner !== undefined) {
      let held = this.#reserved.get(owner) ?? 0;
      for (const e of this.#entries.values()) if (e.owner === owner) held++;
      if (held >= this.#limits.maxPerPrincipal) return { reason: 'principal', limit: this.#limits.maxPerPrincipal };
    }
    this.#reserved.set(owner ?? '', (this.#reserved.get(owner ?? '') ?? 0) + 1);
    return undefined;
  }

  /** Give back a slot taken by {@link reserve}. */
  release(owner: string | undefined): void {
    const key = owner ?? '';
    const left = (this.#reserved.get(key) ?? 1) - 1;
    if (left > 0) this.#reserved.set(key, left);
    else this.#reserved.delete(key);
  }

  add(id: string, owner: string | undefined, session: S, grants?: string): void {
    this.#entries.set(id, { session, owner, grants, lastUsed: this.#clock(), busy: 0 });
  }

  /**
   * The session `id` if `owner` opened it with these `grants`; undefined for
   * an unknown id, another principal's session and the same principal under
   * other grants alike (ids are not probed, and grants are not carried over).
   */
  get(id: string, owner: string | undefined, grants?: string): S | undefined {
    const entry = this.#entries.get(id);
    return entry !== undefined && entry.owner === owner && entry.grants === grants ? entry.session : undefined;
  }

  /** Run `work` for session `id`: it counts as used from start to end, and is not swept meanwhile. */
  async use<T>(id: string, work: () => Promise<T>): Promise<T> {
    const entry = this.#entries.get(id);
    if (entry) entry.busy++;
    try {
      return await work();
    } finally {
      if (entry) {
        entry.busy--;
        entry.lastUsed = this.#clock();
      }
    }
  }

  delete(id: string): void {
    this.#entries.delete(id);
  }

  /** Take every session out and stop the sweep. */
  clear(): S[] {
    clearInterval(this.#timer);
    const all = this.sessions();
    this.#entries.clear();
    return all;
  }

  #sweep(expire: (session: S) => void): void {
    const before = this.#clock() - this.#limits.idleSec * 1000;
    for (const [id, entry] of this.#entries) {
      if (entry.busy > 0 || entry.lastUsed > before) continue;
      this.#entries.delete(id);
      expire(entry.session);
    }
  }
}
