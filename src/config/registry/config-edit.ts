/**
 * Adding one `mcp.servers` entry to a config file's text, keeping what the
 * user wrote: comments, key order, quoting and blank lines stay as they
 * were (the `yaml` package's document model); the new entry is appended with
 * a comment naming its registry entry and the settings to give.
 * @module
 */
import { Document, isMap, isScalar, parseDocument, visit } from 'yaml';
import type { ServerConfigDraft } from './server-config.js';
import { logLine } from '../../model/log-line.js';

/** Why the text could not be edited. */
export type EditRefusal = { reason: 'unparsable' | 'exists' | 'not-a-mapping'; message: string };

/**
 * The config text with `draft` under `mcp.servers.<draft.name>`.
 * @example addMcpServer('sources: [m]\n', draft).text // 'sources: [m]\nmcp:\n  servers:\n    ...'
 */
export function addMcpServer(text: string, draft: ServerConfigDraft, options: { replace?: boolean } = {}): { text: string } | EditRefusal {
  const doc: Document = parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length > 0) return { reason: 'unparsable', message: `the config is not valid YAML: ${doc.errors[0]!.message}` };
  if (doc.contents !== null && !isMap(doc.contents)) return { reason: 'not-a-mapping', message: 'the config is not a mapping of sections' };
  const path = ['mcp', 'servers', draft.name];
  if (doc.hasIn(path) && !options.replace) {
    return { reason: 'exists', message: `mcp.servers.${draft.name} is already configured; give another --name, or --force to replace it` };
  }
  // ATLAS's `tools.mcp` spelling is read too; a second section beside it would be confusing
  if (!doc.hasIn(['mcp']) && doc.hasIn(['tools', 'mcp'])) {
    return { reason: 'not-a-mapping', message: 'the config keeps its MCP servers under tools.mcp (ATLAS spelling); add the entry there by hand' };
  }
  const entry = renderEntry(draft);
  // where it can, the entry is spliced into the text as written, so nothing else in the file moves
  const spliced = options.replace && doc.hasIn(path) ? undefined : splice(text, doc, entry);
  if (spliced !== undefined) return { text: spliced };
  // otherwise (a flow-style mcp or servers mapping, a replaced entry) the document is written again: comments stay, spacing may not
  if (!doc.hasIn(['mcp', 'servers'])) {
    if (!doc.hasIn(['mcp'])) doc.setIn(['mcp'], doc.createNode({}));
    doc.setIn(['mcp', 'servers'], doc.createNode({}));
  }
  const node = doc.createNode(draft.value);
  flowStyle(node);
  doc.setIn(path, node);
  const servers = doc.getIn(['mcp', 'servers']);
  if (isMap(servers)) {
    const pair = servers.items.find((p) => (p.key as { value?: unknown } | null)?.value === draft.name || p.key === draft.name);
    if (pair) {
      const keyNode = isScalar(pair.key) ? pair.key : doc.createNode(draft.name);
      keyNode.commentBefore = commentOf(draft);
      pair.key = keyNode;
    }
  }
  let out = doc.toString({ lineWidth: 0 });
  if (text.endsWith('\n') && !out.endsWith('\n')) out += '\n';
  return { text: out };
}

/** The comment above a new entry: where it came from, and what to set. */
function commentOf(draft: ServerConfigDraft): string {
  // the registry's words, each comment line escaped: a control character in an entry's name is the registry's, and a
  // lone CR is a line break to some YAML readers, which would read the rest of the line as config
  const lines = [` from the MCP Registry: ${draft.entry} (${draft.via})`, ...(draft.required.length > 0 ? [` set before starting: ${draft.required.map((r) => r.variable).join(', ')}`] : [])];
  return lines.map(logLine).join('\n');
}

/** `{ env: NAME }` and argument lists on one line each, as a person would write them. */
function flowStyle(node: unknown): void {
  visit(node as Parameters<typeof visit>[0], {
    Map: (_key, map) => {
      if (map.items.length === 1 && isScalar(map.items[0]!.key) && map.items[0]!.key.value === 'env') map.flow = true;
    },
    Seq: (_key, seq) => {
      seq.flow = true;
    },
  });
}

/** The entry as block YAML lines (comment, key, settings), unindented. */
function renderEntry(draft: ServerConfigDraft): string[] {
  const doc = new Document({ [draft.name]: draft.value });
  flowStyle(doc.contents);
  const body = doc.toString({ lineWidth: 0 }).trimEnd().split('\n');
  return [...commentOf(draft).split('\n').map((l) => `#${l}`), ...body];
}

type Ranged = { range?: [number, number, number] | null | undefined };

/**
 * The text with the entry inserted after the last server of a block-style
 * `mcp.servers` (or a new `servers:` under a block `mcp`, or a new `mcp`
 * section at the end); undefined when the layout is not one of those.
 */
function splice(text: string, doc: Document, entry: string[]): string | undefined {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const block = (lines: string[], indent: string) => lines.map((l) => `${indent}${l}`).join(eol) + eol;
  const indentOf = (node: Ranged | undefined) => (node?.range ? ' '.repeat(node.range[0] - text.lastIndexOf('\n', node.range[0] - 1) - 1) : undefined);
  /** The start of the line after the node's value ends. */
  const after = (node: Ranged) => {
    const end = node.range![1];
    const nl = text.indexOf('\n', Math.max(0, end - 1));
    return nl < 0 ? text.length : nl + 1;
  };
  const insert = (at: number, piece: string) => {
    const before = text.slice(0, at);
    return `${before}${before === '' || before.endsWith('\n') ? '' : eol}${piece}${text.slice(at)}`;
  };
  const mcp = doc.get('mcp', true) as unknown;
  if (mcp === undefined) return insert(text.length, `mcp:${eol}  servers:${eol}${block(entry, '    ')}`);
  if (!isMap(mcp) || mcp.flow || !mcp.range) return undefined;
  const servers = mcp.get('servers', true) as unknown;
  if (servers === undefined) {
    const indent = indentOf(mcp.items[0]?.key as Ranged | undefined);
    if (indent === undefined || mcp.items.length === 0) return undefined;
    return insert(after(mcp), `${indent}servers:${eol}${block(entry, `${indent}  `)}`);
  }
  if (!isMap(servers) || servers.flow || !servers.range || servers.items.length === 0) return undefined;
  const indent = indentOf(servers.items[0]!.key as Ranged | undefined);
  if (indent === undefined) return undefined;
  return insert(after(servers), block(entry, indent));
}
