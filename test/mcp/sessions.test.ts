/** The session table on fake timers: caps with reservations, owners, and the idle sweep sparing busy sessions. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SESSION_DEFAULTS, SessionTable } from '../../src/mcp/sessions.js';
import { grantsKey, type Principal } from '../../src/runtime/identity/principal.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('SessionTable', () => {
  it('has the documented defaults', () => {
    expect(SESSION_DEFAULTS).toEqual({ maxPerPrincipal: 16, maxTotal: 256, idleSec: 900 });
  });

  it('counts reserved slots against the caps, so concurrent opens cannot overshoot', () => {
    const table = new SessionTable<string>({ maxPerPrincipal: 2, maxTotal: 3 }, () => undefined);
    expect(table.reserve('alice')).toBeUndefined();
    expect(table.reserve('alice')).toBeUndefined();
    expect(table.reserve('alice')).toEqual({ reason: 'principal', limit: 2 });
    expect(table.reserve(undefined)).toBeUndefined(); // a trusted caller: only the total cap
    expect(table.reserve('carol')).toEqual({ reason: 'total', limit: 3 });
    table.release('alice');
    table.add('s1', 'alice', 'one');
    table.release('alice');
    expect(table.reserve('alice')).toBeUndefined(); // one open + one reserved
    expect(table.get('s1', 'alice')).toBe('one');
    expect(table.get('s1', 'carol')).toBeUndefined();
    table.clear();
  });

  it('expires idle sessions on its sweep, never one answering a request', async () => {
    vi.useFakeTimers();
    const expired: string[] = [];
    const table = new SessionTable<string>({ idleSec: 60 }, (s) => expired.push(s));
    table.add('idle', 'alice', 'idle');
    table.add('busy', 'alice', 'busy');
    let finish!: () => void;
    const answering = table.use('busy', () => new Promise<void>((resolve) => (finish = resolve)));
    await vi.advanceTimersByTimeAsync(61_000 + 15_000);
    expect(expired).toEqual(['idle']);
    expect(table.size).toBe(1);
    finish();
    await answering;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(expired).toEqual(['idle']); // used just now
    await vi.advanceTimersByTimeAsync(60_000);
    expect(expired).toEqual(['idle', 'busy']);
    table.clear();
  });
});

describe('a session and the grants it was opened with', () => {
  const alice = (personas: string[]): Principal => ({ id: 'alice', roles: ['caller'], personas, via: 'api-key' });
  it.each([
    ['the same grants', alice(['dev', 'ops']), true],
    ['the same grants, listed in another order', { ...alice(['dev', 'ops']), personas: ['ops', 'dev'] }, true],
    ['fewer personas (a second key, or a token that lost a claim)', alice(['dev']), false],
    ['more roles', { ...alice(['dev', 'ops']), roles: ['caller', 'approver'] } as Principal, false],
    ['the same id by another way in', { ...alice(['dev', 'ops']), via: 'oidc' } as Principal, false],
  ])('%s: %s', (_label, asking, allowed) => {
    const table = new SessionTable<string>({}, () => undefined);
    const opener = alice(['dev', 'ops']);
    table.add('s1', opener.id, 'one', grantsKey(opener));
    expect(table.get('s1', asking.id, grantsKey(asking)) === 'one').toBe(allowed);
  });
});
