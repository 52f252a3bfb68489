/**
 * MCP tool names and canonical names. MCP names are case-sensitive and may
 * hold capitals (`npmVersions`), `/` or other characters that canonical
 * names (`^[a-z0-9_][a-z0-9_.-]*$`) do not allow.
 * @module
 */
import { canonicalName as sharedCanonicalName } from '../names.js';
import type { ObjectReader } from '../../source/reader.js';

/** Runs of characters a canonical name cannot hold. */
const DISALLOWED = /[^a-z0-9_.-]+/g;

/**
 * The canonical form of an MCP tool name: the rule every dialect shares
 * (src/dialects/names.ts: camelCase split with `_`, lower-cased, other
 * characters `_`), so one tool gets one name whichever format it came from;
 * `_` is put in front of a leading `.` or `-`.
 * @example canonicalName('npmVersions') // 'npm_versions'
 * @example canonicalName('repo/Get Issue') // 'repo_get_issue'
 */
export function canonicalName(mcpName: string): string {
  const name = sharedCanonicalName(mcpName).replace(DISALLOWED, '_') || mcpName.toLowerCase().replace(DISALLOWED, '_');
  return /^[.-]/.test(name) ? `_${name}` : name;
}

/** MCP tool names: 1 to 128 characters of letters, digits, `_`, `-`, `.` (and `/` in some servers). */
const MCP_NAME = /^[A-Za-z0-9_.\/-]{1,128}$/;

/**
 * The MCP name to write for a tool: its `id` when that is an MCP name which
 * maps to this very tool name (a tool read from MCP, or `addPet` for
 * `add_pet`), else the canonical name. An OpenAPI operationId such as
 * `repos/get-content` for `repos.get_content` does not map back, so the
 * canonical name is written and reads back as the same tool.
 */
export function mcpNameFor(tool: { name: string; id?: string | undefined }): string {
  return tool.id !== undefined && MCP_NAME.test(tool.id) && canonicalName(tool.id) === tool.name ? tool.id : tool.name;
}

/** The canonical name fields of a tool, from its MCP name. */
export interface NameFields {
  name: string;
  /** The MCP name, only when it differs from `name`. */
  id?: string | undefined;
  derived: string[];
}

/**
 * Read `name`. Undefined (reported) when there is no usable one: such an
 * entry is skipped, since nothing could call it. When the canonical name
 * differs, the MCP name is kept as `id` (what export writes back) and `name`
 * is listed in `derived`.
 */
export function readName(reader: ObjectReader): NameFields | undefined {
  if (!reader.has('name')) {
    reader.context.report('MISSING_FIELD', 'An MCP tool has no "name".', reader.pointer, {
      field: 'name',
      hint: 'Give every tool the "name" clients call it by.',
    });
    return undefined;
  }
  const mcpName = reader.string('name');
  if (mcpName === undefined) return undefined;
  if (mcpName === '') {
    reader.context.report('INVALID_VALUE', 'An MCP tool has an empty "name".', reader.at('name'), {
      hint: 'Give every tool a non-empty "name".',
    });
    return undefined;
  }
  const name = canonicalName(mcpName);
  return name === mcpName ? { name, derived: [] } : { name, id: mcpName, derived: ['name'] };
}
