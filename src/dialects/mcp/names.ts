/**
 * MCP tool names and canonical names. MCP names are case-sensitive and may
 * hold capitals (`npmVersions`), `/` or other characters that canonical
 * names (`^[a-z0-9_][a-z0-9_.-]*$`) do not allow.
 * @module
 */
import type { ObjectReader } from '../reader.js';

/** Runs of characters a canonical name cannot hold. */
const DISALLOWED = /[^a-z0-9_.-]+/g;

/**
 * The canonical form of an MCP tool name: lower-cased (as the Xena dialect
 * does with ids, so one tool gets one name whichever format it came from),
 * each run of other characters replaced by `_`, and `_` put in front of a
 * leading `.` or `-`.
 * @example canonicalName('npmVersions') // 'npmversions'
 * @example canonicalName('repo/Get Issue') // 'repo_get_issue'
 */
export function canonicalName(mcpName: string): string {
  const name = mcpName.toLowerCase().replace(DISALLOWED, '_');
  return /^[.-]/.test(name) ? `_${name}` : name;
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
