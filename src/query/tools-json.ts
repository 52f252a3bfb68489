/**
 * The JSON of a `/tools` page, copied together from per-tool pieces made
 * once per snapshot: each tool's view without its health (key, name,
 * personas, capabilities, auth scopes) and its manifest are written once,
 * as UTF-8, and kept with the frozen tool object, so a page costs its health
 * summaries and one copy, not a serialisation and encoding of fifty
 * manifests. The bytes are the UTF-8 of `JSON.stringify(listTools(...))`
 * (test/query/tools-json.test.ts).
 * @module
 */
import { hasSchemaDefs } from '../model/schema-defs.js';
import type { Tool } from '../model/schema.js';
import type { AgentView } from './agent-view.js';
import type { ToolFilter } from './filters.js';
import { authScopes, listTools, normalizedCapabilities, NO_HEALTH, pageOf, toolJsonText, type HealthSource } from './views.js';
import type { Snapshot } from '../registry/snapshot.js';

/** An answer already serialised as JSON (UTF-8 bytes), written out as is. */
export class JsonBytes {
  constructor(readonly bytes: Uint8Array) {}
  /** The JSON text. */
  get text(): string {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength).toString('utf8');
  }
}

/** The view of a tool as JSON bytes, split around its health: `head` + health + `tail`. */
interface Pieces {
  key: string;
  head: Buffer;
  tail: Buffer;
}

const pieces = new WeakMap<Tool, Pieces>();
const UNKNOWN_JSON = Buffer.from(JSON.stringify({ status: 'unknown' }));
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

function piecesOf(tool: Tool, key: string): Pieces {
  const cached = pieces.get(tool);
  if (cached !== undefined && cached.key === key) return cached;
  const personas = tool.scope?.personas ?? [];
  const head = `{"key":${JSON.stringify(key)},"name":${JSON.stringify(tool.name)},"personas":${JSON.stringify(personas)},"capabilities":${JSON.stringify(normalizedCapabilities(tool))},"authScopes":${JSON.stringify(authScopes(tool))},"health":`;
  const made = { key, head: Buffer.from(head), tail: Buffer.from(`,"tool":${toolJsonText(tool)}}`) };
  // only frozen tools (a snapshot's) never change: others are written each time
  if (Object.isFrozen(tool)) pieces.set(tool, made);
  return made;
}

/**
 * `GET /tools` as JSON bytes: the UTF-8 of `JSON.stringify(listTools(snapshot,
 * filter, health, agent))`, copied together from cached pieces in one allocation.
 */
export function listToolsJson(snapshot: Snapshot, filter: ToolFilter, health: HealthSource = NO_HEALTH, agent?: AgentView): JsonBytes {
  const page = pageOf(snapshot, filter, health, agent);
  // tools with schema definitions (imported OpenAPI) are written in the page's shared form, by listTools
  if (page.entries.some((entry) => hasSchemaDefs(entry.value))) return new JsonBytes(Buffer.from(JSON.stringify(listTools(snapshot, filter, health, agent))));
  const next = page.nextCursor !== undefined ? `,"nextCursor":${JSON.stringify(page.nextCursor)}` : '';
  const parts: Buffer[] = [Buffer.from(`{"version":${JSON.stringify(snapshot.version)},"etag":${JSON.stringify(snapshot.etag)},"total":${page.total}${next},"tools":[`)];
  for (let i = 0; i < page.entries.length; i++) {
    const { key, value } = page.entries[i] as { key: string; value: Tool };
    const p = piecesOf(value, key);
    const h = health.lookup(value.name);
    if (i > 0) parts.push(COMMA);
    parts.push(p.head, h === undefined ? UNKNOWN_JSON : Buffer.from(JSON.stringify(h)), p.tail);
  }
  parts.push(CLOSE);
  return new JsonBytes(Buffer.concat(parts));
}
