/**
 * Canonical entries back into one Pylot manifest. Only what Pylot can say is
 * written: canonical fields without a Pylot home (declared effects, approval,
 * cost, ...) are left out, as are derived values.
 * @module
 */
import { declared } from '../../model/derive.js';
import type { BundleInfo, Execution, Tool } from '../../model/schema.js';
import { compact } from '../../model/objects.js';
import { isPlainObject } from '../../source/reader.js';
import type { CanonicalFragment, ExportedFile } from '../types.js';
import { PYLOT_SCHEMA_VERSION } from './document.js';
import { writeFields } from './fields.js';

/** The Pylot manifest for a fragment: `config/tool_manifest.yaml`, or `.json` when it was read from JSON. */
export function exportPylot(fragment: CanonicalFragment): ExportedFile[] {
  const { bundle } = fragment;
  const ext = pylotExtension(bundle?.extensions);
  const format = ext['format'] === 'json' ? 'json' : 'yaml';
  const value = {
    ...fieldsOf(ext),
    // Both are required by Pylot, so they are always written.
    schema_version: bundle?.schemaVersion ?? PYLOT_SCHEMA_VERSION,
    metadata: writeMetadata(bundle),
    tools: (fragment.tools ?? []).map((tool) => exportTool(declared(tool))),
  };
  return [{ path: `config/tool_manifest.${format}`, format, value }];
}

function writeMetadata(bundle: BundleInfo | undefined): Record<string, unknown> {
  if (!bundle) return {};
  const { name, description, version, maintainers, tags } = bundle;
  return { ...bundle.metadata, ...compact({ name, description, version, maintainers, tags }) };
}

/** One canonical tool (already stripped of derived values) as a Pylot entry. */
export function exportTool(tool: Tool): Record<string, unknown> {
  const ext = pylotExtension(tool.extensions);
  const requiredFalse = isPlainObject(ext['requiredFalse']) ? ext['requiredFalse'] : {};
  const entry = compact({
    name: tool.name,
    description: tool.description,
    module: tool.implementation?.module,
    class_name: tool.implementation?.export,
    permissions: tool.permissions,
    inputs: writeFields(tool.inputSchema, stringsOf(requiredFalse['inputs'])),
    outputs: writeFields(tool.outputSchema, stringsOf(requiredFalse['outputs'])),
    runtime: writeRuntime(tool.execution),
    notes: tool.notes,
    audit_status: tool.auditStatus,
    enabled: tool.enabled,
  });
  return { ...fieldsOf(ext), ...entry };
}

function writeRuntime(execution: Execution | undefined): Record<string, unknown> | undefined {
  if (!execution) return undefined;
  const { timeoutSec, allowParallel, resources } = execution;
  const concurrency = allowParallel === undefined ? undefined : allowParallel ? 'parallel' : 'serial';
  const known = compact({ timeout_seconds: timeoutSec, concurrency });
  if (!known && !resources) return undefined;
  return { ...resources, ...known };
}

function pylotExtension(extensions: Record<string, Record<string, unknown>> | undefined): Record<string, unknown> {
  return extensions?.['pylot'] ?? {};
}

/** Unknown source fields kept by import. */
function fieldsOf(ext: Record<string, unknown>): Record<string, unknown> {
  return isPlainObject(ext['fields']) ? ext['fields'] : {};
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
