/**
 * ATLAS's spelling of the MCP settings, read as documented aliases of
 * toolcap's own (docs/dialects/atlas.md): the section may sit at
 * `tools.mcp` as in ATLAS's config, and `allow_tools`, `deny_tools`,
 * `health_check_interval` and a server's `side_effects`, `default_timeout`,
 * `allow_parallel`, `requires_consent`, `idempotency_key` mean what
 * toolcap's names mean. Giving both spellings of one setting is an error.
 *
 * Nothing in these sections is silently ignored: an unknown key is a
 * warning, and an error when its name says it filters or restricts (an
 * ignored deny or allow list fails open: tools it meant to keep out would be
 * discovered and callable).
 * @module
 */
import type { ObjectReader } from '../../source/reader.js';
import type { ConfigReading } from '../reading.js';

/** Section-level aliases: ATLAS name -> toolcap name. */
export const MCP_ALIASES = { allow_tools: 'allowTools', deny_tools: 'denyTools', health_check_interval: 'healthCheckIntervalSec' } as const;

/** Server-level aliases of filters and the health interval: ATLAS name -> toolcap name. */
export const MCP_SERVER_ALIASES = MCP_ALIASES;

/** Server-level ATLAS overrides of the discovered tools' defaults: ATLAS name -> key of toolcap's `defaults`. */
export const MCP_DEFAULT_ALIASES = {
  side_effects: 'sideEffects',
  default_timeout: 'timeoutSec',
  allow_parallel: 'allowParallel',
  requires_consent: 'consent',
  idempotency_key: 'idempotencyKey',
} as const;

/** Unknown keys whose names say they filter or restrict: ignoring one fails open. */
const FAILS_OPEN = /allow|deny|block|exclude|include|forbid|permit|restrict|filter|only|disable|enable|list/i;

/**
 * The key to read a setting from: toolcap's name, or the ATLAS alias when
 * only that is given. Both given: an error at the alias, toolcap's wins.
 * @example reader.strings(keyOrAlias(reader, 'denyTools', 'deny_tools'))
 */
export function keyOrAlias(reader: ObjectReader, key: string, alias: string): string {
  if (!reader.has(alias)) return key;
  if (!reader.has(key)) return alias;
  reader.raw(alias);
  reader.context.report('DUPLICATE_KEY', `"${alias}" is the ATLAS spelling of "${key}"; give one of them.`, reader.at(alias), {
    key: true,
    hint: `Remove "${alias}" or "${key}".`,
  });
  return key;
}

/**
 * Report every key of `reader` not read: a warning, or an error when
 * ignoring it would fail open.
 */
export function reportUnread(reader: ObjectReader, where: string, known: readonly string[]): void {
  const rest = reader.rest({ quiet: true });
  for (const key of Object.keys(rest ?? {})) {
    const failsOpen = FAILS_OPEN.test(key);
    reader.context.report(
      'UNKNOWN_FIELD',
      `Unknown field "${key}" in ${where} (known: ${known.join(', ')}); it is ignored.${failsOpen ? ' Its name says it filters or restricts, and ignoring it would fail open, so the config is refused.' : ''}`,
      reader.at(key),
      { key: true, ...(failsOpen ? { severity: 'error' } : {}), hint: failsOpen ? 'Spell it as toolcap or ATLAS does (allowTools/allow_tools, denyTools/deny_tools), or remove it.' : 'Check the spelling; unknown fields have no effect.' },
    );
  }
}

/**
 * The reader of the MCP section: `mcp`, or ATLAS's `tools.mcp` (both: an
 * error, `mcp` wins). The other keys under `tools` name tools (their
 * settings: sections/tools.ts).
 */
export function mcpSectionReader(reading: ConfigReading): ObjectReader | undefined {
  const own = reading.top.has('mcp') ? reading.top.object('mcp') : undefined;
  if (!reading.top.has('tools')) return own;
  const tools = reading.top.object('tools');
  if (!tools) return own;
  let atlas: ObjectReader | undefined;
  if (tools.has('mcp')) {
    if (own) {
      tools.raw('mcp');
      reading.report('DUPLICATE_KEY', 'The MCP settings are given twice: as "mcp" and as ATLAS\'s "tools.mcp"; give one.', tools.at('mcp'), { key: true, hint: 'Move everything under one of them.' });
    } else atlas = tools.object('mcp');
  }
  // the other keys of `tools` are tools' own settings (sections/tools.ts)
  return own ?? atlas;
}
