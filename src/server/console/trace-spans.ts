/**
 * A call's spans, read back from the trace file `toolcap serve` writes
 * (`traces.jsonl`, already redacted when written): the spans that carry
 * the call id (`gen_ai.tool.call.id`) and every span of their traces (the
 * provider attempts). Read on demand for the audit page's trace view;
 * spans are written in batches, so the newest call's may come a few
 * seconds later.
 * @module
 */
import { readFile, stat } from 'node:fs/promises';

/** One span as the trace file holds it. */
export interface SpanLine {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  start: string;
  durationMs: number;
  status: { code: number; message?: string };
  attributes: Record<string, unknown>;
}

/** The file is read only up to this size (it is rotated at 10 MiB). */
const MAX_BYTES = 16 * 1024 * 1024;

/** The spans of the call, oldest first; empty when the file is missing, too large or has none yet. */
export async function callSpans(file: string, callId: string): Promise<SpanLine[]> {
  let text: string;
  try {
    if ((await stat(file)).size > MAX_BYTES) return [];
    text = await readFile(file, 'utf8');
  } catch {
    return [];
  }
  const spans: SpanLine[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      spans.push(JSON.parse(line) as SpanLine);
    } catch {
      // a line cut by a crash or a rotation: skip it
    }
  }
  const traces = new Set(spans.filter((s) => s.attributes?.['gen_ai.tool.call.id'] === callId).map((s) => s.traceId));
  return spans.filter((s) => traces.has(s.traceId)).sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
}
