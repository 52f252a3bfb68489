/**
 * The contract every provider type passes. `setup` yields four instances of
 * the type: one that succeeds by echoing its arguments, one whose tool fails,
 * one that hangs until aborted, and one that is unavailable (nothing runs).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/model/schema.js';
import { ProviderError, type ProviderCallContext, type ProviderInstance } from '../../../src/runtime/providers/types.js';

export interface ContractInstances {
  /** The provider type's name (`module`, `http`, ...). */
  type: string;
  /** Resolves to exactly the arguments it was called with. */
  succeed: ProviderInstance;
  /** The tool runs and fails. */
  fail: ProviderInstance;
  /** Never finishes on its own. */
  hang: ProviderInstance;
  /** Cannot be reached or started. */
  unavailable: ProviderInstance;
  /** Release what setup made (servers, processes). */
  cleanup?: () => Promise<void>;
}

export const CONTRACT_TOOL: Tool = { name: 'contract.echo' };

let counter = 0;
/** A call context for tests. */
export function contextFor(signal: AbortSignal = new AbortController().signal, tool: Tool = CONTRACT_TOOL): ProviderCallContext {
  counter += 1;
  return { signal, callId: `call-${counter}`, attempt: 1, tool };
}

/** Await a rejection and return it as a ProviderError (fails the test otherwise). */
export async function rejection(promise: Promise<unknown>): Promise<ProviderError> {
  let outcome: unknown;
  try {
    outcome = await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderError);
    return err as ProviderError;
  }
  throw new Error(`expected a rejection, got ${JSON.stringify(outcome)}`);
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function runProviderContract(name: string, setup: () => Promise<ContractInstances> | ContractInstances): void {
  describe(`provider contract: ${name}`, () => {
    let p: ContractInstances;
    beforeAll(async () => {
      p = await setup();
    });
    afterAll(async () => {
      for (const i of [p?.succeed, p?.fail, p?.hang, p?.unavailable]) await i?.close?.();
      await p?.cleanup?.();
    });

    it('sets name and type on every instance', () => {
      for (const instance of [p.succeed, p.fail, p.hang, p.unavailable]) {
        expect(instance.type).toBe(p.type);
        expect(typeof instance.name).toBe('string');
        expect(instance.name.length).toBeGreaterThan(0);
      }
    });

    it.each([
      ['a flat object', { text: 'hello', n: 3, ok: true }],
      ['nested JSON', { list: [1, 'two', { three: 3 }], nested: { deep: { value: null } }, unicode: 'héllo ✓' }],
      ['no arguments', {}],
    ])('success returns the JSON result (%s)', async (_label, args) => {
      await expect(p.succeed.call(args, contextFor())).resolves.toEqual(args);
    });

    it('a tool failure rejects with PROVIDER_ERROR, not before effect', async () => {
      const err = await rejection(p.fail.call({ x: 1 }, contextFor()));
      expect(err.code).toBe('PROVIDER_ERROR');
      expect(err.beforeEffect).toBe(false);
      expect(err.message.length).toBeGreaterThan(0);
    });

    it('aborting the signal rejects a hanging call with ABORTED', async () => {
      const controller = new AbortController();
      const pending = p.hang.call({ wait: true }, contextFor(controller.signal));
      let settled = false;
      pending.then(
        () => (settled = true),
        () => (settled = true),
      );
      await delay(150); // let it get under way
      expect(settled).toBe(false); // it really hangs
      controller.abort(new Error('caller gave up'));
      const err = await rejection(pending);
      expect(err.code).toBe('ABORTED');
    }, 15_000);

    it('an already aborted signal rejects with ABORTED before anything runs', async () => {
      const controller = new AbortController();
      controller.abort();
      const err = await rejection(p.succeed.call({ a: 1 }, contextFor(controller.signal)));
      expect(err.code).toBe('ABORTED');
      expect(err.beforeEffect).toBe(true);
    });

    it('an unavailable provider rejects with beforeEffect true', async () => {
      const err = await rejection(p.unavailable.call({ a: 1 }, contextFor()));
      expect(err.beforeEffect).toBe(true);
      expect(err.code).toBe('PROVIDER_UNAVAILABLE');
    });

    it('codeIdentity(), when implemented, is a stable string', async () => {
      for (const instance of [p.succeed, p.fail, p.hang, p.unavailable]) {
        if (!instance.codeIdentity) continue;
        const first = await instance.codeIdentity();
        expect(first).toMatch(new RegExp(`^${p.type}:`));
        expect(await instance.codeIdentity()).toBe(first);
      }
    });

    it('ready() answers a HealthCheckResult when implemented', () => {
      for (const instance of [p.succeed, p.fail, p.hang]) {
        const r = instance.ready?.() ?? { healthy: true };
        expect(r.healthy).toBe(true);
      }
    });
  });
}
