/**
 * Where spans go, decided once at start from the standard OpenTelemetry
 * environment variables and the config's `telemetry` section.
 *
 * Exporters: `jsonl` (toolcap's own file, the zero-set-up default), `otlp`
 * (OTLP over HTTP, protobuf or JSON) and `none`. Without
 * `OTEL_TRACES_EXPORTER` (or `telemetry.traces.exporters`) the file is
 * written, and OTLP is added as soon as an endpoint is set: the spec's
 * default of `otlp` would make every newcomer's toolcap post to
 * localhost:4318. An `OTEL_*` variable that is set wins over the config
 * (how deployments are wired); `OTEL_SDK_DISABLED=true` turns every
 * exporter off. Values that cannot be used are reported, never thrown.
 * @module
 */

/** A trace exporter toolcap can run. */
export type TraceExporterName = 'jsonl' | 'otlp';

/** The names `OTEL_TRACES_EXPORTER` and `telemetry.traces.exporters` accept. */
export const TRACE_EXPORTERS = ['jsonl', 'otlp', 'none'] as const;

/** The OTLP protocols toolcap speaks (gRPC is not bundled). */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The OTLP/HTTP traces path appended to a base endpoint (the spec's rule). */
export const OTLP_TRACES_PATH = 'v1/traces';

/** The endpoint used when `otlp` is asked for with none given (the spec's default). */
export const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318';

/** The config's `telemetry` section, as read (every field optional). */
export interface TelemetryConfig {
  /** Turn every exporter off (as `OTEL_SDK_DISABLED=true`). @default false */
  disabled?: boolean;
  /** `service.name` of the resource. @default 'toolcap' */
  serviceName?: string;
  /** More resource attributes (`deployment.environment`, ...). */
  resourceAttributes?: Record<string, string>;
  traces?: {
    /** Exporters to run; `[none]` for none. @default jsonl, plus otlp when an endpoint is set */
    exporters?: Array<(typeof TRACE_EXPORTERS)[number]>;
    otlp?: {
      /** Base URL; `/v1/traces` is appended. */
      endpoint?: string;
      /** Full URL of the traces endpoint (wins over `endpoint`). */
      tracesEndpoint?: string;
      /** @default 'http/protobuf' */
      protocol?: OtlpProtocol;
      /** Per export. @default 10000 */
      timeoutMs?: number;
    };
  };
}

/** What the tracing is made of. */
export interface TraceSettings {
  /** The exporters to run (empty: spans are not exported at all). */
  exporters: TraceExporterName[];
  /** With `otlp`: where and how. */
  otlp?: { url: string; protocol: OtlpProtocol; headers: Record<string, string>; timeoutMs: number };
  /** Resource attributes, `service.name` included. */
  resource: Record<string, string>;
  /** What could not be used, for the operator (`warn`). */
  warnings: string[];
}

type Env = Readonly<Record<string, string | undefined>>;

const set = (env: Env, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
};

/**
 * `k1=v1,k2=v2` as `OTEL_RESOURCE_ATTRIBUTES` and `OTEL_EXPORTER_OTLP_HEADERS`
 * write it (values percent-decoded); malformed members are reported and skipped.
 * @example parseKeyValues('a=1,b=x%20y', 'X', []) // { a: '1', b: 'x y' }
 */
export function parseKeyValues(text: string, variable: string, warnings: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const member of text.split(',')) {
    if (member.trim() === '') continue;
    const eq = member.indexOf('=');
    const key = eq < 0 ? '' : member.slice(0, eq).trim();
    if (key === '') {
      // the member may be a secret (a header value): name only its position
      warnings.push(`${variable}: a member is not key=value; it is ignored`);
      continue;
    }
    try {
      out[key] = decodeURIComponent(member.slice(eq + 1).trim());
    } catch {
      warnings.push(`${variable}: the value of "${key}" is not percent-encoded correctly; it is ignored`);
    }
  }
  return out;
}

/** A base endpoint with the traces path appended (once, with one slash). */
export function tracesUrl(base: string): string {
  return `${base.replace(/\/+$/, '')}/${OTLP_TRACES_PATH}`;
}

function exporterList(text: string, where: string, warnings: string[]): TraceExporterName[] {
  const names = text.split(',').map((n) => n.trim().toLowerCase()).filter((n) => n !== '');
  const out: TraceExporterName[] = [];
  for (const name of names) {
    if (name === 'none') return [];
    if (name === 'jsonl' || name === 'otlp') {
      if (!out.includes(name)) out.push(name);
    } else warnings.push(`${where}: the exporter "${name}" is not supported (jsonl, otlp, none); it is ignored`);
  }
  return out;
}

function validUrl(url: string, where: string, warnings: string[]): string | undefined {
  try {
    const u = new URL(url);
    if (u.protocol === 'http:' || u.protocol === 'https:') return url;
  } catch {
    // reported below
  }
  // the URL is not echoed: it may hold credentials
  warnings.push(`${where}: the value is not an http(s) URL; OTLP export is off`);
  return undefined;
}

/**
 * The trace settings from the environment and the config (the environment
 * wins field by field). `jsonlAvailable` is false when the host was asked
 * for no trace file: `jsonl` is then dropped from the default.
 * @example traceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, {}).exporters // ['jsonl', 'otlp']
 */
export function traceSettings(env: Env, config: TelemetryConfig = {}, version = ''): TraceSettings {
  const warnings: string[] = [];
  const resource: Record<string, string> = { ...(config.resourceAttributes ?? {}) };
  const envAttributes = set(env, 'OTEL_RESOURCE_ATTRIBUTES');
  if (envAttributes !== undefined) Object.assign(resource, parseKeyValues(envAttributes, 'OTEL_RESOURCE_ATTRIBUTES', warnings));
  resource['service.name'] = set(env, 'OTEL_SERVICE_NAME') ?? (envAttributes !== undefined ? resource['service.name'] : undefined) ?? config.serviceName ?? resource['service.name'] ?? 'toolcap';
  if (version !== '') resource['service.version'] ??= version;

  const disabled = set(env, 'OTEL_SDK_DISABLED');
  if (disabled?.toLowerCase() === 'true' || (disabled === undefined && config.disabled === true)) return { exporters: [], resource, warnings };

  const o = config.traces?.otlp ?? {};
  const envTraces = set(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const envBase = set(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  // the signal's own endpoint is used as written; a base gets /v1/traces
  const url = envTraces ?? (envBase !== undefined ? tracesUrl(envBase) : undefined) ?? o.tracesEndpoint ?? (o.endpoint !== undefined ? tracesUrl(o.endpoint) : undefined);

  const listed = set(env, 'OTEL_TRACES_EXPORTER');
  let exporters: TraceExporterName[];
  if (listed !== undefined) exporters = exporterList(listed, 'OTEL_TRACES_EXPORTER', warnings);
  else if (config.traces?.exporters !== undefined) exporters = exporterList(config.traces.exporters.join(','), 'telemetry.traces.exporters', warnings);
  else exporters = url !== undefined ? ['jsonl', 'otlp'] : ['jsonl'];
  if (!exporters.includes('otlp')) return { exporters, resource, warnings };

  const checked = validUrl(url ?? tracesUrl(DEFAULT_OTLP_ENDPOINT), envTraces !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : envBase !== undefined ? 'OTEL_EXPORTER_OTLP_ENDPOINT' : 'telemetry.traces.otlp', warnings);
  if (checked === undefined) return { exporters: exporters.filter((e) => e !== 'otlp'), resource, warnings };

  const asked = set(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? set(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ?? o.protocol ?? 'http/protobuf';
  let protocol: OtlpProtocol = 'http/protobuf';
  if ((OTLP_PROTOCOLS as readonly string[]).includes(asked)) protocol = asked as OtlpProtocol;
  else warnings.push(`OTLP protocol "${asked}" is not supported (http/protobuf, http/json); using http/protobuf`);

  // headers (an API key) come from the environment only: a config file is no place for a secret
  const headers: Record<string, string> = {};
  for (const name of ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS']) {
    const text = set(env, name);
    if (text !== undefined) Object.assign(headers, parseKeyValues(text, name, warnings));
  }
  const envTimeout = Number(set(env, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT') ?? set(env, 'OTEL_EXPORTER_OTLP_TIMEOUT'));
  const timeoutMs = Number.isInteger(envTimeout) && envTimeout > 0 ? envTimeout : (o.timeoutMs ?? 10_000);
  return { exporters, otlp: { url: checked, protocol, headers, timeoutMs }, resource, warnings };
}
