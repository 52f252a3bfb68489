/**
 * One Xena tool entry (`config/registry/tools.json`) to a canonical tool and
 * back: the base fields, the `surface` contract, the runtime fields, and the
 * webhook `workflowRoutes` that live in `metadata`.
 * @module
 */
import { declared } from '../../model/derive.js';
import { joinPointer } from '../../model/diagnostics.js';
import { compact, compactRequired } from '../../model/objects.js';
import type { Surface, Tool } from '../../model/schema.js';
import {
  RISK_LEVELS,
  SURFACE_DOMAINS,
  SURFACE_OPERATIONS,
  TASK_ROLES,
  type Mode,
  type SurfaceOperation,
} from '../../model/vocabulary.js';
import { isPlainObject, ObjectReader } from '../../source/reader.js';
import type { ImportContext } from '../types.js';
import { exportBase, extensionsWith, leftoversOf, overlay, readBase, requireKeys, type JsonObject } from './base.js';
import { readWorkflowRoutes } from './routes.js';

/** Every base, surface and runtime field the Xena tool contract requires. */
const TOOL_REQUIRED = [
  'name',
  'version',
  'description',
  'enabled',
  'tags',
  'metadata',
  'surface',
  'capabilities',
  'deterministic',
  'riskLevel',
] as const;
const SURFACE_REQUIRED = ['domains', 'entities', 'operations', 'taskRoles', 'authority', 'freshnessSlaSec'] as const;

/**
 * Whether each surface operation reads or writes. A tool is `write` when any
 * of its operations writes, else `read`. `execute` counts as a write: running
 * code or a workflow may change anything. `analyze`/`classify`/`verify` only
 * look at what they are given.
 */
const OPERATION_MODE: Record<SurfaceOperation, Mode> = {
  probe: 'read',
  list: 'read',
  read: 'read',
  search: 'read',
  analyze: 'read',
  classify: 'read',
  verify: 'read',
  write: 'write',
  reply: 'write',
  comment: 'write',
  execute: 'write',
  start: 'write',
  stop: 'write',
  restart: 'write',
};

/** The mode implied by the operations, or undefined when there are none. */
function modeOfOperations(operations: readonly SurfaceOperation[] | undefined): Mode | undefined {
  if (operations === undefined || operations.length === 0) return undefined;
  return operations.some((op) => OPERATION_MODE[op] === 'write') ? 'write' : 'read';
}

/** Xena rejects empty `domains`/`operations`: a surface must say what it covers. */
function nonEmpty<T>(reader: ObjectReader, key: string, items: T[] | undefined): T[] | undefined {
  const source = reader.value[key];
  if (!Array.isArray(source) || source.length > 0) return items;
  reader.context.report('INVALID_VALUE', `"surface.${key}" is empty.`, reader.at(key), {
    hint: `List at least one ${key === 'domains' ? 'domain' : 'operation'}.`,
  });
  return undefined;
}

function readSurface(reader: ObjectReader): { surface?: Surface | undefined; leftovers?: JsonObject | undefined } {
  const s = reader.object('surface');
  if (!s) return {};
  requireKeys(s, SURFACE_REQUIRED, '"surface"');
  const surface = compact<Surface>({
    domains: nonEmpty(s, 'domains', s.enumValues('domains', SURFACE_DOMAINS)),
    entities: s.strings('entities'),
    operations: nonEmpty(s, 'operations', s.enumValues('operations', SURFACE_OPERATIONS)),
    taskRoles: s.enumValues('taskRoles', TASK_ROLES),
    authority: s.number('authority', { min: 0, max: 1 }),
    freshnessSlaSec: s.number('freshnessSlaSec', { min: 0 }),
  });
  return { surface, leftovers: s.rest({ where: 'surface' }) };
}

/** `metadata` split into canonical `workflowRoutes` and the rest. */
function readToolMetadata(reader: ObjectReader): {
  metadata?: JsonObject | undefined;
  routes?: Tool['workflowRoutes'];
  leftovers?: JsonObject | undefined;
} {
  const m = reader.object('metadata');
  if (!m) return {};
  const routes = m.has('workflowRoutes') ? readWorkflowRoutes(m) : {};
  // The rest of metadata is free-form in Xena too: no unknown-field warnings.
  const metadata = m.rest({ quiet: true }) ?? {};
  return {
    metadata,
    routes: routes.routes,
    leftovers: routes.leftovers ? { workflowRoutes: routes.leftovers } : undefined,
  };
}

/** A JSON Schema object (Xena allows only objects here). */
function readSchema(reader: ObjectReader, key: string): JsonObject | undefined {
  return reader.object(key)?.value;
}

/**
 * Xena treats a tool as a task source only when it has both the `tasks.probe`
 * capability and the `source` task role; one without the other is almost
 * always a mistake that leaves the tool silently unused.
 */
function lintTaskSource(reader: ObjectReader): void {
  const capabilities = reader.value['capabilities'];
  const surface = reader.value['surface'];
  const roles = isPlainObject(surface) ? surface['taskRoles'] : undefined;
  if (!Array.isArray(capabilities) || !Array.isArray(roles)) return;
  const probe = capabilities.indexOf('tasks.probe');
  const source = roles.indexOf('source');
  if (probe >= 0 && source < 0) {
    reader.context.report(
      'CONTRADICTORY_CLAIM',
      'The tool has capability "tasks.probe" but not task role "source", so Xena does not treat it as a task source.',
      joinPointer(reader.at('capabilities'), probe),
      { severity: 'warning', hint: 'Add "source" to surface.taskRoles, or drop "tasks.probe".' },
    );
  } else if (source >= 0 && probe < 0) {
    reader.context.report(
      'CONTRADICTORY_CLAIM',
      'The tool has task role "source" but not capability "tasks.probe", so Xena does not treat it as a task source.',
      joinPointer(reader.at('surface'), 'taskRoles', source),
      { severity: 'warning', hint: 'Add "tasks.probe" to capabilities, or drop the "source" role.' },
    );
  }
}

/** Translate one entry of `tools`. Undefined (reported) when it has no usable id. */
export function importTool(context: ImportContext, value: unknown, pointer: string): Tool | undefined {
  const r = ObjectReader.of(context, value, pointer, 'A Xena tool');
  if (!r) return undefined;
  const base = readBase(r, 'A Xena tool');
  if (!base) return undefined;
  requireKeys(r, TOOL_REQUIRED, `Tool "${base.id}"`);
  const meta = readToolMetadata(r);
  const { surface, leftovers: surfaceLeftovers } = readSurface(r);
  const capabilities = r.strings('capabilities');
  const effects = compact<NonNullable<Tool['effects']>>({
    mode: modeOfOperations(surface?.operations),
    deterministic: r.boolean('deterministic'),
    risk: r.enumValue('riskLevel', RISK_LEVELS),
  });
  const inputSchema = readSchema(r, 'inputSchema');
  const outputSchema = readSchema(r, 'outputSchema');
  lintTaskSource(r);
  const unknown = r.rest({ where: `tool "${base.id}"` });
  const derived = [...(base.derived ?? []), ...(effects?.mode !== undefined ? ['effects.mode'] : [])];
  return compactRequired<Tool>({
    ...base,
    metadata: meta.metadata,
    workflowRoutes: meta.routes,
    surface,
    capabilities,
    effects,
    inputSchema,
    outputSchema,
    derived: derived.length > 0 ? derived : undefined,
    extensions: extensionsWith({ ...unknown, surface: surfaceLeftovers, metadata: meta.leftovers }),
  });
}

/** One canonical tool as a Xena tool entry. */
export function exportTool(tool: Tool): unknown {
  const t = declared(tool);
  // Routes live inside metadata in Xena; metadata exists if either was declared.
  const metadata =
    t.metadata !== undefined || t.workflowRoutes !== undefined ? { ...t.metadata, workflowRoutes: t.workflowRoutes } : undefined;
  return overlay(leftoversOf(t), {
    ...exportBase(t),
    metadata,
    surface: t.surface,
    capabilities: t.capabilities,
    deterministic: t.effects?.deterministic,
    riskLevel: t.effects?.risk,
    inputSchema: t.inputSchema,
    outputSchema: t.outputSchema,
  });
}
