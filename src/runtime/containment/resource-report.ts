/**
 * Which declared resources a provider honours. A manifest's
 * `execution.resources` (Pylot's `runtime` resource hints: `memory_mb`,
 * `cpu_seconds`, `gpu`, ...) is a promise about the tool's footprint; toolcap
 * enforces the limits it can on what a provider runs (resource-limits.ts):
 * the `command` provider starts its process under `prlimit` (all three
 * limits), the `module` provider caps a worker's heap (`memoryMb`); each
 * provider instance says which it applies (`enforcedResourceLimits`).
 * Everything else is reported as not enforced: a limit the provider cannot
 * apply (`http`, `mcp`: nothing runs here), and any key toolcap has no
 * limit for (a hint such as `gpu`). The reports are health warnings: the
 * tool still runs.
 * @module
 */
import { readResourceLimits, type ResourceLimitName } from './resource-limits.js';

/** The limit a key of `execution.resources` names (in any of its spellings), or undefined for a hint. */
export function resourceLimitOf(key: string): ResourceLimitName | undefined {
  return (Object.keys(readResourceLimits({ [key]: 1 }).limits) as ResourceLimitName[])[0];
}

/**
 * The warnings for the resources a tool declares, given the limits its
 * provider applies.
 * @example
 * resourceWarnings({ memory_mb: 256, gpu: 1 }, [], 'http')
 * // ['execution.resources.gpu is not enforced: toolcap has no limit for it (a hint)',
 * //  'execution.resources.memory_mb is not enforced: a http provider cannot apply it']
 * resourceWarnings({ memory_mb: 256, gpu: 1 }, ['memoryMb', 'cpuSec', 'openFiles'], 'command')
 * // ['execution.resources.gpu is not enforced: toolcap has no limit for it (a hint)']
 */
export function resourceWarnings(resources: Readonly<Record<string, unknown>> | undefined, enforced: readonly ResourceLimitName[], providerType: string): string[] {
  const warnings: string[] = [];
  for (const key of Object.keys(resources ?? {}).sort()) {
    const limit = resourceLimitOf(key);
    if (limit !== undefined && enforced.includes(limit)) continue;
    warnings.push(
      limit !== undefined
        ? `execution.resources.${key} is not enforced: a ${providerType} provider cannot apply it`
        : `execution.resources.${key} is not enforced: toolcap has no limit for it (a hint)`,
    );
  }
  return warnings;
}
