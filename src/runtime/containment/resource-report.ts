/**
 * Which declared resources a provider honours. A manifest's
 * `execution.resources` (Pylot's `runtime` resource hints: `memory_mb`,
 * `cpu_seconds`, `gpu`, ...) is a promise about the tool's footprint; toolcap
 * enforces the limits it can (memory, CPU time, open files) on the process a
 * provider starts (resource-limits.ts). Everything else is reported as not
 * enforced: by a provider that starts no process of its own (`http`, `mcp`,
 * `module`), every declared resource; by one that does (`command`, and any
 * provider instance that says `enforcesResourceLimits`), the keys that are
 * hints toolcap has no limit for. The reports are health warnings: a
 * provider that does not enforce a hint still runs.
 * @module
 */
import { readResourceLimits } from './resource-limits.js';

/** How a provider can hold a tool to its declared resources. */
export type ResourceEnforcement =
  /** It starts a process and applies the known limits to it (the provider reports a missing `prlimit` itself). */
  | 'process'
  /** It runs nothing toolcap can limit. */
  | 'none';

/** Is `key` of `execution.resources` one of the limits toolcap knows (in any of its spellings)? */
export function isResourceLimitKey(key: string): boolean {
  return Object.keys(readResourceLimits({ [key]: 1 }).limits).length > 0;
}

/**
 * The warnings for the resources a tool declares, given how its provider
 * enforces them.
 * @example
 * resourceWarnings({ memory_mb: 256, gpu: 1 }, 'none', 'http')
 * // ['execution.resources.memory_mb is not enforced: a http provider runs no process toolcap can limit',
 * //  'execution.resources.gpu is not enforced: toolcap has no limit for it (a hint)']
 * resourceWarnings({ memory_mb: 256, gpu: 1 }, 'process', 'command')
 * // ['execution.resources.gpu is not enforced: toolcap has no limit for it (a hint)']
 */
export function resourceWarnings(resources: Readonly<Record<string, unknown>> | undefined, enforcement: ResourceEnforcement, providerType: string): string[] {
  const warnings: string[] = [];
  for (const key of Object.keys(resources ?? {}).sort()) {
    const limit = isResourceLimitKey(key);
    if (limit && enforcement === 'process') continue;
    warnings.push(
      limit
        ? `execution.resources.${key} is not enforced: a ${providerType} provider runs no process toolcap can limit`
        : `execution.resources.${key} is not enforced: toolcap has no limit for it (a hint)`,
    );
  }
  return warnings;
}
