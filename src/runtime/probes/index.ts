/**
 * Task-source probes (Xena's runtime contract), as `toolcap/runtime`
 * exports them: the adapter registry, the snapshot, and the provider
 * resolver that reads `metadata.probe.file`.
 * @example
 * const adapters = new ProbeAdapters().register(linearAdapter).bind('tool.tasks.linear.assigned', 'linearAssigned');
 * const snapshot = await taskSnapshot(runtime, registry, adapters, { persona: 'ops' });
 * @module
 */
export { ProbeAdapters, builtinProbeAdapters } from './adapters.js';
export { taskSnapshot, isTaskSource } from './snapshot.js';
export type { SnapshotRequest } from './snapshot.js';
export { withProbeFiles } from './file-provider.js';
export type { Observation } from './observations.js';
export type { ProbeAdapter, ProbeContext, ProbeCall, SourceReport, SourceStatus, TaskSnapshot } from './types.js';
