/**
 * An OTLP/HTTP traces receiver for tests (no Collector is packaged here):
 * a node:http server that accepts `POST /v1/traces` in both protocols and
 * decodes the real payload, protobuf through protobufjs with the message
 * definitions of opentelemetry-proto (trace/v1, common/v1, resource/v1;
 * field numbers as published), JSON as the OTLP/JSON mapping writes it.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

/** The subset of opentelemetry-proto a trace export uses, field numbers as published. */
const OTLP_TRACE_PROTO = `
syntax = "proto3";
package opentelemetry.proto;
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7; } }
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message Status { string message = 2; int32 code = 3; }
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; fixed32 flags = 16;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10; repeated Event events = 11;
  uint32 dropped_events_count = 12; uint32 dropped_links_count = 14; Status status = 15;
}
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
`;

const REQUEST = protobuf.parse(OTLP_TRACE_PROTO, { keepCase: false }).root.lookupType('opentelemetry.proto.ExportTraceServiceRequest');

/** One span as received: name, attributes and resource flattened to plain values. */
export interface ReceivedSpan {
  name: string;
  traceId: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  scope: string;
  status: { code: number; message?: string };
}

/** One export request. */
export interface ReceivedExport {
  path: string;
  contentType: string | undefined;
  headers: IncomingHttpHeaders;
  spans: ReceivedSpan[];
}

type AnyValue = Record<string, unknown>;

function plain(v: AnyValue | undefined): unknown {
  if (v === undefined || v === null) return undefined;
  if ('stringValue' in v) return v['stringValue'];
  if ('boolValue' in v) return v['boolValue'];
  if ('intValue' in v) return Number(v['intValue']);
  if ('doubleValue' in v) return v['doubleValue'];
  if ('arrayValue' in v) return ((v['arrayValue'] as { values?: AnyValue[] }).values ?? []).map(plain);
  return undefined;
}

const attrs = (list: Array<{ key: string; value?: AnyValue }> | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, plain(kv.value)]));

interface Decoded {
  resourceSpans?: Array<{ resource?: { attributes?: Array<{ key: string; value?: AnyValue }> }; scopeSpans?: Array<{ scope?: { name?: string }; spans?: Array<Record<string, unknown>> }> }>;
}

function spansOf(decoded: Decoded, hexId: (v: unknown) => string): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of decoded.resourceSpans ?? []) {
    const resource = attrs(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        const status = (s['status'] ?? {}) as { code?: number; message?: string };
        out.push({
          name: s['name'] as string,
          traceId: hexId(s['traceId']),
          attributes: attrs(s['attributes'] as Array<{ key: string; value?: AnyValue }>),
          resource,
          scope: ss.scope?.name ?? '',
          status: { code: status.code ?? 0, ...(status.message ? { message: status.message } : {}) },
        });
      }
    }
  }
  return out;
}

/** Decode an export body by its content type. */
export function decodeExport(body: Buffer, contentType: string | undefined): ReceivedSpan[] {
  if (contentType?.startsWith('application/x-protobuf')) {
    const message = REQUEST.decode(body);
    const decoded = REQUEST.toObject(message, { longs: String, bytes: Buffer, defaults: false, oneofs: false }) as Decoded;
    return spansOf(decoded, (v) => Buffer.from(v as Uint8Array).toString('hex'));
  }
  if (contentType?.startsWith('application/json')) return spansOf(JSON.parse(body.toString('utf8')) as Decoded, (v) => String(v));
  throw new Error(`unexpected content type ${String(contentType)}`);
}

/** A receiver listening on 127.0.0.1 (a free port); `exports` fills as requests arrive. */
export async function startOtlpReceiver(): Promise<{ url: string; exports: ReceivedExport[]; spans(): ReceivedSpan[]; close(): Promise<void> }> {
  const exports: ReceivedExport[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const contentType = req.headers['content-type'];
        exports.push({ path: req.url ?? '', contentType, headers: req.headers, spans: decodeExport(Buffer.concat(chunks), contentType) });
        // an empty ExportTraceServiceResponse: full success
        res.writeHead(200, { 'content-type': contentType?.startsWith('application/json') ? 'application/json' : 'application/x-protobuf' });
        res.end(contentType?.startsWith('application/json') ? '{}' : Buffer.alloc(0));
      } catch (error) {
        res.writeHead(400).end(String(error));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    spans: () => exports.flatMap((e) => e.spans),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
