/**
 * Each tool's runnable providers, made once per frozen tool: the resolver
 * instantiates the tool's provider entries (ascending priority) with the
 * folder relative module paths and commands resolve from, which comes from
 * the tool's provenance in its snapshot. A reload that changes a tool makes
 * a new frozen tool, hence new instances; an unchanged one keeps its own.
 * The instances of tools a reload dropped are retired; the runtime's
 * shutdown closes them all.
 * @module
 */
import { dirname, resolve } from 'node:path';
import type { Tool } from '../model/schema.js';
import { toolKey } from '../model/tool-key.js';
import type { Snapshot } from '../registry/snapshot.js';
import type { HealthBook } from './health.js';
import type { HealthChecks } from './health-checks.js';
import type { ProviderSlot } from './providers/provider-types.js';
import type { ProviderEnvironment } from './providers/types.js';
import { resourceWarnings } from './containment/resource-report.js';

/** Turns a tool's provider entries into runnable instances, in ascending priority (see providers/provider-types.ts). */
export interface ProviderResolver {
  instantiate(tool: Tool, environment: ProviderEnvironment): ProviderSlot[];
}

/**
 * The slots of every tool a call has reached, cached per frozen tool (so
 * the provenance lookup and the instantiation happen once, not per call).
 * @example
 * const slots = new ProviderSlots(new ProviderTypes(), environment, health, checks).of(snapshot, tool);
 */
export class ProviderSlots {
  readonly #resolver: ProviderResolver;
  readonly #environment: ProviderEnvironment;
  readonly #health: HealthBook;
  readonly #checks: HealthChecks;
  readonly #cache = new Map<Tool, readonly ProviderSlot[]>();
  /** The newest snapshot seen: tools a newer one no longer has are retired. */
  #version = -1;

  constructor(resolver: ProviderResolver, environment: ProviderEnvironment, health: HealthBook, checks: HealthChecks) {
    this.#resolver = resolver;
    this.#environment = environment;
    this.#health = health;
    this.#checks = checks;
  }

  /** The slots of `tool` (a tool of `snapshot`); the first time, also declares it to the health book and schedules its checks. */
  of(snapshot: Snapshot, tool: Tool): readonly ProviderSlot[] {
    if (snapshot.version > this.#version) this.#retireAllBut(snapshot);
    let list = this.#cache.get(tool);
    if (!list) {
      list = this.#resolver.instantiate(tool, this.#environmentOf(snapshot, tool));
      this.#cache.set(tool, list);
      this.#health.declare(tool);
      for (const slot of list) if (slot.instance) this.#checks.schedule(tool, slot.entry.name, slot.instance);
      this.#recordWarnings(tool, list);
    }
    return list;
  }

  /**
   * A newer snapshot is serving: the instances of tools it no longer holds
   * (a reload changed or removed them) release their resources once their
   * calls under way finish (`retire()`, else `close()`).
   */
  #retireAllBut(snapshot: Snapshot): void {
    this.#version = snapshot.version;
    const live = new Set(snapshot.tools);
    for (const [tool, slots] of this.#cache) {
      if (live.has(tool)) continue;
      this.#cache.delete(tool);
      for (const { instance } of slots) {
        if (instance?.retire) instance.retire();
        else void instance?.close?.().catch(() => undefined);
      }
    }
  }

  /** Release every instance made (the runtime's shutdown). */
  async close(): Promise<void> {
    const slots = [...this.#cache.values()].flat();
    this.#cache.clear();
    await Promise.all(slots.map(({ instance }) => instance?.close?.().catch(() => undefined)));
  }

  /**
   * Each provider's standing warnings into the health book: declared
   * resources it does not enforce (containment/resource-report.ts) and what
   * its own readiness check warns about.
   */
  #recordWarnings(tool: Tool, slots: readonly ProviderSlot[]): void {
    for (const slot of slots) {
      if (!slot.instance) continue;
      let own: string[] = [];
      try {
        own = slot.instance.ready?.().warnings ?? [];
      } catch {
        // readiness is asked again at call time, where a failure counts; here only warnings are collected
      }
      const warnings = [...new Set([...resourceWarnings(tool.execution?.resources, slot.instance.enforcedResourceLimits ?? [], slot.type ?? slot.entry.name), ...own])];
      if (warnings.length > 0) this.#health.setWarnings(tool.name, slot.entry.name, warnings);
    }
  }

  /** Relative module paths and commands resolve from the folder of the manifest that first defined the tool. */
  #environmentOf(snapshot: Snapshot, tool: Tool): ProviderEnvironment {
    const origin = snapshot.provenance(toolKey(tool))?.[0]?.file;
    return origin === undefined ? this.#environment : { ...this.#environment, baseDir: dirname(resolve(origin)) };
  }
}
