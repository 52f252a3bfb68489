/**
 * Adding one `mcp.servers` entry to a config file's text, keeping what the
 * user wrote: comments, key order, quoting and blank lines stay as they
 * were (the `yaml` package's document model); the new entry is appended with
 * a comment naming its registry entry and the settings to give.
 * @module
 */
import { isMap, isScalar, parseDocument, visit, type Document } from 'yaml';
import type { ServerConfigDraft } from './server-config.js';

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
  if (!doc.hasIn(['mcp', 'servers'])) {
    if (!doc.hasIn(['mcp'])) doc.setIn(['mcp'], doc.createNode({}));
    doc.setIn(['mcp', 'servers'], doc.createNode({}));
  }
  const node = doc.createNode(draft.value);
  // { env: NAME } and argument lists on one line each, as a person would write them
  visit(node, {
    Map: (_key, map) => {
      if (map.items.length === 1 && isScalar(map.items[0]!.key) && map.items[0]!.key.value === 'env') map.flow = true;
    },
    Seq: (_key, seq) => {
      seq.flow = true;
    },
  });
  doc.setIn(path, node);
  const servers = doc.getIn(['mcp', 'servers']);
  if (isMap(servers)) {
    const pair = servers.items.find((p) => (p.key as { value?: unknown } | null)?.value === draft.name || p.key === draft.name);
    const key = pair?.key;
    const comment = [` from the MCP Registry: ${draft.entry} (${draft.via})`, ...(draft.required.length > 0 ? [` set before starting: ${draft.required.map((r) => r.variable).join(', ')}`] : [])].join('\n');
    if (key && typeof key === 'object') (key as { commentBefore?: string }).commentBefore = comment;
    else if (pair) {
      // a plain-string key: make it a node so it can carry the comment
      const keyNode = doc.createNode(draft.name);
      keyNode.commentBefore = comment;
      pair.key = keyNode;
    }
  }
  let out = doc.toString({ lineWidth: 0, flowCollectionPadding: false });
  if (text.endsWith('\n') && !out.endsWith('\n')) out += '\n';
  return { text: out };
}
