/**
 * The learned floor: a learned tool (written at run time, runtime/learned-tools.ts)
 * may describe a tool a reviewed manifest also defines, but never loosen it.
 * After the learned layer overlays a tool an earlier (reviewed) layer
 * defined, these fields are raised back to at least what the reviewed
 * version said, as the MCP hint floors of floors.ts do for discovered tools:
 *
 * | field | floor |
 * | --- | --- |
 * | `effects.mode`, `effects.sideEffects`, `effects.reversible`, `effects.risk` | the more severe of the two |
 * | `effects.external` | true stays true |
 * | `effects.deterministic` | false stays false |
 * | `approval.required` | true stays true |
 * | `approval.consent` | true stays true |
 * | `auditStatus` | `experimental` stays; otherwise the reviewed one, unless the learned entry says `experimental` |
 * | `execution.idempotent` | false stays false |
 * | `execution.retryClass` | the less permissive of the two |
 * | `execution.timeoutSec` | the shorter of the two (the reviewed one or the 30 s default) |
 * | `execution.allowParallel` | true only when the reviewed tool says so |
 * | `execution.resources` | the reviewed ones (limits, and the hints a runner reads) |
 * | `enabled` | false stays false |
 * | `implementation`, `providers`, `metadata.probe.file` | the reviewed ones (a learned entry cannot change what runs: a task file is what the `probe-file` provider reads) |
 * | `auth`, `storage`, `observability`, `workflowRoutes` | the reviewed ones: the credentials a call gets (an `auth.envs` name reaches a child process's environment, an OAuth service its tokens), the SQL it runs, which arguments are recorded, where webhooks dispatch |
 * | `inputSchema`, `outputSchema`, `configSchema` | the reviewed ones when it has them: what a caller's arguments, a result and the configuration are checked against |
 *
 * Layers after the learned layer (overrides) are reviewed and apply as usual.
 *
 * {@link runFieldsOf} and {@link withoutRunFields} are the one list of what
 * says what runs: the learned-tool check refuses an entry with any of them,
 * and the catalog build drops them from a learned entry no reviewed layer
 * defines.
 * @module
 */
import type { Tool } from '../model/schema.js';
import { DEFAULT_TIMEOUT_SEC } from '../model/derive.js';
import { MODES, REVERSIBILITY, RETRY_CLASSES, RISK_LEVELS, SIDE_EFFECTS, mostRestrictive, rank } from '../model/vocabulary.js';

/** The fields of a tool entry that say what runs (as JSON pointers into the entry). */
const RUN_FIELDS = ['/providers', '/implementation', '/metadata/probe/file'] as const;

/** The probe file of an entry (`metadata.probe.file`), present or not. */
const probeFileIn = (entry: { metadata?: unknown }): unknown => {
  const probe = (entry.metadata as Record<string, unknown> | undefined)?.['probe'];
  return probe !== null && typeof probe === 'object' && !Array.isArray(probe) ? (probe as Record<string, unknown>)['file'] : undefined;
};

/** The pointers of the fields of `entry` that say what runs; empty when it says nothing about it. */
export function runFieldsOf(entry: Record<string, unknown>): string[] {
  return RUN_FIELDS.filter((f) => (f === '/metadata/probe/file' ? probeFileIn(entry) : entry[f.slice(1)]) !== undefined);
}

/** `tool` without what runs (`providers`, `implementation`, `metadata.probe.file`), for a learned entry. */
export function withoutRunFields(tool: Tool): Tool {
  if (runFieldsOf(tool as unknown as Record<string, unknown>).length === 0) return tool;
  const { providers: _p, implementation: _i, ...rest } = tool;
  return withProbeFile(rest as Tool, undefined);
}

/** `tool` with `metadata.probe.file` set to `file` (removed when undefined). */
function withProbeFile(tool: Tool, file: unknown): Tool {
  if (probeFileIn(tool) === file) return tool;
  const probe = { ...((tool.metadata?.['probe'] as Record<string, unknown> | undefined) ?? {}) };
  if (file === undefined) delete probe['file'];
  else probe['file'] = file;
  const metadata: Record<string, unknown> = { ...tool.metadata, probe };
  if (Object.keys(probe).length === 0) delete metadata['probe'];
  return { ...tool, metadata } as Tool;
}

/** What a call runs with, apart from its code: always the reviewed version's (or absent with it). */
const REVIEWED_ONLY = ['implementation', 'providers', 'auth', 'storage', 'observability', 'workflowRoutes'] as const;
/** What a call is checked against: the reviewed version's when it has one (a learned one only adds checks). */
const REVIEWED_SCHEMAS = ['inputSchema', 'inputSchemaRef', 'outputSchema', 'configSchema'] as const;

/** `merged` (the reviewed tool with a learned entry on top) raised to what `reviewed` said. */
export function floorLearned(reviewed: Tool, merged: Tool): Tool {
  const out: Tool = { ...merged };
  const r = reviewed.effects;
  if (r) {
    const e: Record<string, unknown> = { ...merged.effects };
    const m = merged.effects ?? {};
    e['mode'] = mostRestrictive(MODES, m.mode, r.mode);
    e['sideEffects'] = mostRestrictive(SIDE_EFFECTS, m.sideEffects, r.sideEffects);
    e['reversible'] = mostRestrictive(REVERSIBILITY, m.reversible, r.reversible);
    e['risk'] = mostRestrictive(RISK_LEVELS, m.risk, r.risk);
    if (r.external === true) e['external'] = true;
    if (r.deterministic === false) e['deterministic'] = false;
    for (const key of Object.keys(e)) if (e[key] === undefined) delete e[key];
    out.effects = e as Tool['effects'] & object;
  }
  if (reviewed.approval?.required === true) out.approval = { ...out.approval, required: true };
  if (reviewed.approval?.consent === true) out.approval = { ...out.approval, consent: true };
  // experimental means a person approves every call (the built-in rule), unset matches rules for unreviewed tools
  if (out.auditStatus !== 'experimental' && out.auditStatus !== reviewed.auditStatus) {
    if (reviewed.auditStatus !== undefined) out.auditStatus = reviewed.auditStatus;
    else delete out.auditStatus;
  }
  const x = reviewed.execution;
  if (x || merged.execution) {
    const ex: Record<string, unknown> = { ...merged.execution };
    if (x?.idempotent === false) ex['idempotent'] = false;
    if (x?.retryClass !== undefined && (ex['retryClass'] === undefined || rank(RETRY_CLASSES, ex['retryClass'] as string) > rank(RETRY_CLASSES, x.retryClass))) ex['retryClass'] = x.retryClass;
    const ceiling = x?.timeoutSec ?? DEFAULT_TIMEOUT_SEC;
    if (typeof ex['timeoutSec'] !== 'number' || ex['timeoutSec'] > ceiling) ex['timeoutSec'] = x?.timeoutSec;
    if (ex['allowParallel'] === true && x?.allowParallel !== true) ex['allowParallel'] = x?.allowParallel;
    ex['resources'] = x?.resources;
    for (const key of Object.keys(ex)) if (ex[key] === undefined) delete ex[key];
    out.execution = ex as Tool['execution'] & object;
  }
  if (reviewed.enabled === false) out.enabled = false;
  const keep = (key: (typeof REVIEWED_ONLY)[number] | (typeof REVIEWED_SCHEMAS)[number]) => {
    if (reviewed[key] !== undefined) (out as Record<string, unknown>)[key] = reviewed[key];
    else delete (out as Record<string, unknown>)[key];
  };
  for (const key of REVIEWED_ONLY) keep(key);
  for (const key of REVIEWED_SCHEMAS) if (reviewed[key] !== undefined) keep(key);
  return withProbeFile(out, probeFileIn(reviewed));
}
