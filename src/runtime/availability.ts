/**
 * The health book's view of credentials: a tool whose every provider misses
 * a required variable shows `health.status: unavailable`, with the
 * variables' names (credentials.ts), on `/tools`, `/tools/{name}` and the
 * MCP gateway alike, before any call is tried.
 * @module
 */
import type { Registry } from '../registry/registry.js';
import type { Snapshot } from '../registry/snapshot.js';
import { credentialNames, credentialUnavailable } from './credentials.js';
import type { Availability } from './health.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Availability over the registry's serving snapshot and `env`. A name with
 * several persona versions is unavailable when every enabled version is.
 * @example health.useAvailability(credentialAvailability(registry, process.env));
 */
export function credentialAvailability(registry: Registry, env: Env): Availability {
  const names = new WeakMap<Snapshot, string[]>();
  const serving = (): Snapshot | undefined => {
    try {
      return registry.snapshot();
    } catch {
      return undefined; // no catalog yet: nothing to say
    }
  };
  return {
    of(tool) {
      const versions = (serving()?.byName.get(tool) ?? []).filter((t) => t.enabled !== false);
      if (versions.length === 0) return undefined;
      const each = versions.map((t) => credentialUnavailable(t, env));
      if (each.some((u) => u === undefined)) return undefined;
      return each[0];
    },
    signature() {
      const snapshot = serving();
      if (!snapshot) return '';
      let list = names.get(snapshot);
      if (!list) names.set(snapshot, (list = [...new Set(snapshot.tools.flatMap((t) => credentialNames(t)))].sort()));
      return list.map((n) => ((env[n] ?? '') === '' ? '0' : '1')).join('');
    },
  };
}
