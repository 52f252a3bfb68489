/**
 * The names the gateway lists tools under (`mcp.names`): `canonical`, the
 * default, lists `notes.append` as it is; `openai-safe` lists names OpenAI's
 * and Anthropic's APIs accept (`notes_append`, `^[a-zA-Z0-9_-]{1,64}$`), so
 * an agent framework can hand the list to such a model unchanged. The
 * mapping (dialects/safe-names.ts) is made over every tool of the serving
 * snapshot, so one tool has one safe name for every session and persona; a
 * renamed tool's `_meta["toolcap.dev/name"]` holds the real name, and a
 * call under the safe name is routed to the real tool.
 * @module
 */
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { OPENAI_NAME_RULE, safeNames, type NameMapping } from '../dialects/safe-names.js';
import type { Registry } from '../registry/registry.js';

/** What the gateway's tools are listed as. */
export const GATEWAY_NAME_MODES = ['canonical', 'openai-safe'] as const;
export type GatewayNameMode = (typeof GATEWAY_NAME_MODES)[number];

/** The `_meta` key holding a renamed tool's real name. */
export const NAME_META_KEY = 'toolcap.dev/name';

/** Listed name <-> real name, for one gateway. */
export interface GatewayNames {
  /** The name to list a tool under. */
  listed(name: string): string;
  /** The real name of a listed one (a name that is no listed one is itself). */
  real(name: string): string;
  /** A listed tool under its listed name, the real one in `_meta` when they differ. */
  list(tool: McpTool): McpTool;
}

const IDENTITY: GatewayNames = { listed: (n) => n, real: (n) => n, list: (t) => t };

/**
 * The names of a gateway over `registry` in `mode`; the mapping follows the
 * serving snapshot (made again once per reload). `reserved`: the gateway's
 * own tool names, which no catalog tool is listed or called under.
 * @example gatewayNames(registry, 'openai-safe').listed('notes.append') // 'notes_append'
 */
export function gatewayNames(registry: Registry, mode: GatewayNameMode = 'canonical', reserved: readonly string[] = []): GatewayNames {
  if (mode === 'canonical') return IDENTITY;
  let cached: { version: number; mapping: NameMapping } | undefined;
  const mapping = (): NameMapping => {
    const snapshot = registry.snapshot();
    // the gateway's own tools (`reserved`) claim their names first: a catalog tool `toolcap.call.tool` mapped to
    // `toolcap_call_tool` took the meta-tool's calls and was listed beside it; it gets a hash suffix instead
    if (cached?.version !== snapshot.version) cached = { version: snapshot.version, mapping: safeNames([...reserved, ...snapshot.tools.map((t) => t.name)], OPENAI_NAME_RULE) };
    return cached.mapping;
  };
  const listed = (name: string) => mapping().safe.get(name) ?? name;
  return {
    listed,
    // a real name that is not a listed one is not renamed away: a dotted name is never a safe one
    real: (name) => mapping().originals.get(name) ?? name,
    list: (tool) => {
      const name = listed(tool.name);
      return name === tool.name ? tool : { ...tool, name, _meta: { ...tool._meta, [NAME_META_KEY]: tool.name } };
    },
  };
}
