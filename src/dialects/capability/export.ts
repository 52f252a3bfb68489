/**
 * Writing canonical tools as capability manifests: one YAML file per tool
 * named after it (an array file when several tools, or an array source, go
 * together), plus the input schemas that `inputSchemaRef` points at.
 * @module
 */
import { posix } from 'node:path';
import { declared } from '../../model/derive.js';
import { compact, compactRequired } from '../../model/objects.js';
import type { Tool } from '../../model/schema.js';
import type { Reversibility } from '../../model/vocabulary.js';
import type { CanonicalFragment, ExportedFile } from '../types.js';
import { extensionOf, isArrayDocument, mergeKept, type Syntax } from './extension.js';

/** The file an array of manifests is written to. */
const ARRAY_FILE = 'capabilities.yaml';

type Manifest = Record<string, unknown>;

/** Export canonical tools; skills, agents and jobs have no home in this format. */
export function exportCapability(fragment: CanonicalFragment): ExportedFile[] {
  const tools = (fragment.tools ?? []).map(declared);
  const manifests = tools.map(toManifest);
  const [only] = manifests;
  if (only === undefined) return [];
  const main: ExportedFile =
    manifests.length === 1 && !isArrayDocument(fragment.bundle)
      ? { path: `${fileName(tools[0]?.name ?? 'tool')}.yaml`, format: 'yaml', value: only }
      : { path: ARRAY_FILE, format: 'yaml', value: manifests };
  return [main, ...schemaFiles(tools)];
}

/** One tool as a manifest object. Derived values are already gone (`declared`). */
function toManifest(tool: Tool): Manifest {
  const { fields, syntax } = extensionOf(tool);
  const writeInline = tool.inputSchemaRef === undefined || syntax.inlineInputSchema === true;
  const manifest = compactRequired<Manifest>({
    name: tool.name,
    summary: tool.description,
    inputSchemaRef: tool.inputSchemaRef,
    inputSchema: writeInline ? tool.inputSchema : undefined,
    capabilities: capabilitiesOf(tool, syntax),
  });
  return mergeKept(manifest, fields);
}

function capabilitiesOf(tool: Tool, syntax: Syntax): Manifest | undefined {
  const { effects, auth, approval, cost, latency, execution, observability } = tool;
  return compact<Manifest>({
    mode: effects?.mode,
    sideEffects: compact<Manifest>({
      external: effects?.external,
      reversible: reversibleOf(effects?.reversible, syntax),
      rollbackHint: effects?.rollbackHint,
    }),
    auth: compact<Manifest>({ scope: scopeOf(auth?.scopes, syntax), humanApprovalRequired: approval?.required }),
    cost: compact<Manifest>({ lane: cost?.lane, estimatedDollars: cost?.estimatedDollars }),
    latency: compact<Manifest>({ p50Ms: latency?.p50Ms, p95Ms: latency?.p95Ms }),
    reliability: compact<Manifest>({ idempotent: execution?.idempotent, retryClass: execution?.retryClass }),
    observability: compact<Manifest>({ emitTraceAttrs: observability?.traceAttrs }),
    alternatives: tool.alternatives,
  });
}

/** Booleans come back only where the source used them and they still say full / none. */
function reversibleOf(value: Reversibility | undefined, syntax: Syntax): Reversibility | boolean | undefined {
  if (syntax.reversibleBoolean && value === 'full') return true;
  if (syntax.reversibleBoolean && value === 'none') return false;
  return value;
}

/** One scope is written as a plain string, the blog's spelling, unless the source listed it. */
function scopeOf(scopes: readonly string[] | undefined, syntax: Syntax): string | string[] | undefined {
  if (scopes === undefined) return undefined;
  const [first] = scopes;
  return scopes.length === 1 && first !== undefined && !syntax.scopeList ? first : [...scopes];
}

/** The schema files the manifests refer to, once each; references leaving the folder are not written. */
function schemaFiles(tools: readonly Tool[]): ExportedFile[] {
  const files = new Map<string, ExportedFile>();
  for (const tool of tools) {
    const ref = tool.inputSchemaRef;
    if (ref === undefined || tool.inputSchema === undefined || extensionOf(tool).syntax.inlineInputSchema) continue;
    const path = posix.normalize(ref.replace(/\\/g, '/'));
    if (posix.isAbsolute(path) || path === '..' || path.startsWith('../') || files.has(path)) continue;
    files.set(path, { path, format: /\.ya?ml$/i.test(path) ? 'yaml' : 'json', value: tool.inputSchema });
  }
  return [...files.values()];
}

/** A file name from a tool name; names are already lowercase ids, this only guards odd input. */
function fileName(name: string): string {
  return name.replace(/[^a-z0-9_.-]/gi, '_') || 'tool';
}
