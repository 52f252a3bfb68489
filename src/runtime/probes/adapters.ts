/**
 * The probe adapter registry: adapters by name (the built-in `mapping` and
 * `file`, plus custom ones), and which adapter a task-source tool uses:
 *
 * 1. one bound to the tool's id or name with {@link ProbeAdapters.bind}
 *    (Xena's `TASK_PROBE_ADAPTERS` map);
 * 2. else the adapter named by `metadata.probeAdapter`;
 * 3. else `metadata.probe.adapter`, or, when `metadata.probe` is an
 *    object, `file` if it names a `file` and `mapping` otherwise;
 * 4. else none: the source is `unsupported`.
 * @module
 */
import type { Tool } from '../../model/schema.js';
import { fileAdapter, mappingAdapter } from './mapping.js';
import type { ProbeAdapter } from './types.js';

/** The built-in adapters. */
export function builtinProbeAdapters(): ProbeAdapter[] {
  return [mappingAdapter, fileAdapter];
}

/** The adapter a tool uses, or why it has none. */
export type AdapterChoice = { adapter: ProbeAdapter } | { unsupported: string };

/**
 * Probe adapters by name, and tool bindings.
 * @example new ProbeAdapters().register(linearAdapter).bind('tool.tasks.linear.assigned', 'linearAssigned')
 */
export class ProbeAdapters {
  readonly #adapters = new Map<string, ProbeAdapter>();
  readonly #bindings = new Map<string, string>();

  constructor(options: { empty?: boolean } = {}) {
    if (!options.empty) for (const a of builtinProbeAdapters()) this.register(a);
  }

  /** Add an adapter. Throws when one of that name is already registered. */
  register(adapter: ProbeAdapter): this {
    if (typeof adapter.name !== 'string' || adapter.name === '') throw new TypeError('a probe adapter needs a non-empty "name"');
    if (this.#adapters.has(adapter.name)) throw new Error(`probe adapter "${adapter.name}" is already registered`);
    this.#adapters.set(adapter.name, adapter);
    return this;
  }

  /** Use the adapter named `adapter` for the tool whose id (or name) is `toolId`, whatever its metadata says. */
  bind(toolId: string, adapter: string): this {
    this.#bindings.set(toolId, adapter);
    return this;
  }

  get(name: string): ProbeAdapter | undefined {
    return this.#adapters.get(name);
  }

  /** Registered adapter names, in registration order. */
  names(): string[] {
    return [...this.#adapters.keys()];
  }

  /** The adapter of a task-source tool (see the module comment for the order). */
  adapterFor(tool: Tool): AdapterChoice {
    const bound = this.#bindings.get(tool.id ?? tool.name) ?? this.#bindings.get(tool.name);
    const meta = tool.metadata ?? {};
    const probe = meta['probe'];
    const spec = probe !== null && typeof probe === 'object' && !Array.isArray(probe) ? (probe as Record<string, unknown>) : undefined;
    const named =
      bound ??
      (typeof meta['probeAdapter'] === 'string' ? meta['probeAdapter'] : undefined) ??
      (typeof spec?.['adapter'] === 'string' ? spec['adapter'] : spec === undefined ? undefined : spec['file'] !== undefined ? 'file' : 'mapping');
    if (named === undefined) return { unsupported: 'no probe adapter: bind one to the tool id, or describe the mapping in metadata.probe' };
    const adapter = this.#adapters.get(named);
    return adapter ? { adapter } : { unsupported: `no probe adapter named "${named}" is registered (registered: ${this.names().join(', ') || 'none'})` };
  }
}
