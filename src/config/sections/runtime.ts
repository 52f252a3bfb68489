/**
 * The `runtime` section: how the code of tools is contained. Which folders
 * besides a manifest's own `module` tools may load from, whether module
 * tools run in worker threads (the default) or the server's thread, and the
 * largest response body a provider reads. It goes to the registry (the
 * trusted folders, for MODULE_PATH_REFUSED) and to the runtime's provider
 * environment, which {@link providerEnvironment} builds together with the
 * `egress` section.
 * @module
 */
import { Type } from '@sinclair/typebox';
import { joinPointer } from '../../model/diagnostics.js';
import { DEFAULT_MAX_BODY_BYTES } from '../../runtime/containment/body-limit.js';
import type { ProviderEnvironment } from '../../runtime/providers/types.js';
import type { ObjectReader } from '../../source/reader.js';
import { PathString, type ConfigReading } from '../reading.js';
import type { EgressConfig } from './egress.js';
import { AUDIT_GATES, type AuditGate } from '../../registry/audit-gate.js';
import type { ResultPolicy } from '../../runtime/result-check.js';

const RESULT_POLICIES = ['warn', 'fail'] as const satisfies readonly ResultPolicy[];

/** Where module tools run unless a tool opts into `inline`. */
export const MODULE_ISOLATIONS = ['worker', 'inline'] as const satisfies ReadonlyArray<NonNullable<ProviderEnvironment['moduleIsolation']>>;
export type ModuleIsolation = (typeof MODULE_ISOLATIONS)[number];

/** The `runtime` section, with defaults applied. */
export interface RuntimeSection {
  /** Absolute folders besides each manifest's own that `module` tools may load from. @default [] */
  trustedModuleDirs: string[];
  /** Where module tools run unless one opts into `inline`. @default 'worker' */
  moduleIsolation: ModuleIsolation;
  /** Largest response body a provider reads, in bytes. @default 10485760 (10 MiB) */
  maxResponseBytes: number;
  /** Base URLs by provider type (`google_cse`, `serpapi`, `openai`): proxies or stand-ins, over the manifests' `baseUrl`. @default {} */
  providerBaseUrls?: Record<string, string>;
  /** Audit states whose tools are exposed (registry/audit-gate.ts). @default every state */
  allowAuditStatus?: AuditGate[];
  /** A result that does not match the tool's outputSchema: counted as drift (`warn`), or also failing the call (`fail`). @default 'warn' */
  results: ResultPolicy;
}

/** @default { trustedModuleDirs: [], moduleIsolation: 'worker', maxResponseBytes: 10 MiB } */
export const DEFAULT_RUNTIME: Readonly<RuntimeSection> = Object.freeze({ trustedModuleDirs: [], moduleIsolation: 'worker', maxResponseBytes: DEFAULT_MAX_BODY_BYTES, results: 'warn' });

/** `runtime`: trusted module folders, module isolation, the response size limit. */
export const RuntimeSchema = Type.Object(
  {
    trustedModuleDirs: Type.Optional(Type.Array(PathString('A folder module tools may load from besides their manifest\'s own, relative to the config file.'))),
    moduleIsolation: Type.Optional(
      Type.Unsafe<ModuleIsolation>({ type: 'string', enum: [...MODULE_ISOLATIONS], default: DEFAULT_RUNTIME.moduleIsolation, description: 'Where module tools run unless one opts into inline: a worker thread each, or the server\'s thread.' }),
    ),
    maxResponseBytes: Type.Optional(Type.Integer({ minimum: 1, default: DEFAULT_RUNTIME.maxResponseBytes, description: 'Largest response body a provider reads, in bytes.' })),
    providerBaseUrls: Type.Optional(
      Type.Record(Type.String(), Type.String({ pattern: '^https?://' }), { description: 'Base URLs by provider type (google_cse, serpapi, openai): a proxy or stand-in, over the manifests\' baseUrl.' }),
    ),
    allowAuditStatus: Type.Optional(Type.Array(Type.Unsafe<AuditGate>({ type: 'string', enum: [...AUDIT_GATES] }), { description: 'Only tools whose audit_status is listed are exposed ("unset": tools that declare none). Default: every state.' })),
    results: Type.Optional(Type.Unsafe<ResultPolicy>({ type: 'string', enum: [...RESULT_POLICIES], default: 'warn', description: 'A result that does not match the tool\'s outputSchema: counted as drift (warn), or also failing the call (fail).' })),
  },
  { additionalProperties: false, description: 'How the code of tools is contained (docs/security.md).' },
);

/** Read `runtime` (optional); fields not given keep {@link DEFAULT_RUNTIME}. Trusted folders must exist and be folders. */
export function readRuntime(reading: ConfigReading): RuntimeSection {
  const runtimeReader = reading.top.object('runtime');
  if (!runtimeReader) return { ...DEFAULT_RUNTIME, trustedModuleDirs: [] };
  const trustedModuleDirs: string[] = [];
  runtimeReader.array('trustedModuleDirs')?.forEach((value, i) => {
    const pointer = joinPointer(runtimeReader.at('trustedModuleDirs'), i);
    const path = reading.pathString(value, pointer, 'trusted module folder');
    const kind = path === undefined ? undefined : reading.exists(path, pointer, 'trusted module folder');
    if (kind === 'file') reading.report('INVALID_VALUE', 'A trusted module folder must be a folder, not a file.', pointer, { hint: 'Name the folder that holds the modules.' });
    if (path !== undefined && kind === 'folder') trustedModuleDirs.push(path);
  });
  const moduleIsolation = runtimeReader.enumValue('moduleIsolation', MODULE_ISOLATIONS);
  const maxResponseBytes = runtimeReader.number('maxResponseBytes', { integer: true, min: 1 });
  const providerBaseUrls = readProviderBaseUrls(runtimeReader);
  const allowAuditStatus = runtimeReader.enumValues('allowAuditStatus', AUDIT_GATES);
  const results = runtimeReader.enumValue('results', RESULT_POLICIES);
  runtimeReader.rest({ where: 'runtime (known: trustedModuleDirs, moduleIsolation, maxResponseBytes, providerBaseUrls, allowAuditStatus, results)' });
  return {
    ...(providerBaseUrls ? { providerBaseUrls } : {}),
    trustedModuleDirs,
    moduleIsolation: moduleIsolation ?? DEFAULT_RUNTIME.moduleIsolation,
    maxResponseBytes: maxResponseBytes ?? DEFAULT_RUNTIME.maxResponseBytes,
    ...(allowAuditStatus !== undefined ? { allowAuditStatus } : {}),
    results: results ?? DEFAULT_RUNTIME.results,
  };
}

/** The config sections the provider environment comes from (a `Config` is one). */
export interface ContainmentSections {
  egress?: EgressConfig;
  runtime: RuntimeSection;
}

/**
 * What the runtime's providers get from the config: the egress policy (when
 * the config has one; else each http provider's own hosts), the response
 * size limit, the trusted module folders and the module isolation.
 * @example new Runtime({ registry, store, environment: { baseDir: config.root, ...providerEnvironment(config) } })
 */
export function providerEnvironment(config: ContainmentSections): Omit<ProviderEnvironment, 'env' | 'baseDir'> {
  const { egress, runtime } = config;
  return {
    ...(egress ? { egress: { allow: [...egress.allow], ...(egress.crossOriginRedirects ? { crossOriginRedirects: egress.crossOriginRedirects } : {}) } } : {}),
    maxResponseBytes: runtime.maxResponseBytes,
    trustedModuleDirs: [...runtime.trustedModuleDirs],
    moduleIsolation: runtime.moduleIsolation,
    ...(runtime.providerBaseUrls ? { baseUrls: { ...runtime.providerBaseUrls } } : {}),
  };
}

/** `runtime.providerBaseUrls`: `{ <provider type>: <absolute http(s) URL> }`. */
function readProviderBaseUrls(runtimeReader: ObjectReader): Record<string, string> | undefined {
  const reader = runtimeReader.object('providerBaseUrls');
  if (!reader) return undefined;
  const out: Record<string, string> = {};
  for (const type of Object.keys(reader.value)) {
    const url = reader.string(type);
    if (url === undefined) continue;
    if (/^https?:\/\/\S+$/.test(url)) out[type] = url;
    else reader.context.report('INVALID_VALUE', `The base URL of provider type "${type}" must be an absolute http(s) URL.`, reader.at(type), { hint: 'Write it as https://proxy.example.com.' });
  }
  return out;
}
