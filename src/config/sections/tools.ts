/**
 * The `tools` section: what the operator says about single tools, by tool
 * name. Today: a tool's configuration values (Shinkai `configurations`,
 * canonical `configSchema`), secrets as `{ env: NAME }`, and its SQL
 * database's settings. The values are checked against each tool's declared
 * schema once the catalog is loaded (tool-settings-check.ts), not here: the
 * config does not know the tools.
 *
 * ```yaml
 * tools:
 *   notes_keeper:
 *     configurations:
 *       owner: ada
 *       apiKey: { env: NOTES_API_KEY }
 *     sql:
 *       allowAdHoc: false
 * ```
 * @module
 */
import { Type } from '@sinclair/typebox';
import { McpSchema } from './mcp.js';
import { joinPointer, type Location } from '../../model/diagnostics.js';
import { envReference, type ToolSettings } from '../../runtime/tool-configurations.js';
import { at } from '../../source/source.js';
import type { ConfigReading } from '../reading.js';

/** Where one tool's settings are written in the config, for diagnostics. */
export interface ToolSettingsLocation {
  /** `tools.<name>` */
  entry: Location;
  /** `tools.<name>.configurations`, when written. */
  configurations?: Location;
  /** Each key of `configurations`. */
  keys: Record<string, Location>;
}

/** The `tools` section, read. */
export interface ToolsSection {
  /** Per tool name. @default {} */
  settings: Record<string, ToolSettings>;
  /** Per tool name, where its settings are written. */
  locations: Record<string, ToolSettingsLocation>;
  /** Where `tools` itself is (or the config file, when absent). */
  location: Location;
}

const EnvReference = Type.Object({ env: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'An environment variable whose value this is (a secret: never written out).' }) }, { additionalProperties: false });

/** `tools`: per tool name, `configurations` and `sql`; `tools.mcp` is ATLAS's spelling of the `mcp` section (mcp-atlas.ts). */
export const ToolsSchema = Type.Object(
  { mcp: Type.Optional(McpSchema) },
  {
    additionalProperties: Type.Object(
    {
      configurations: Type.Optional(Type.Record(Type.String(), Type.Union([EnvReference, Type.Unknown()]), { description: "Values of the tool's configurations (configSchema); { env: NAME } reads a variable." })),
      sql: Type.Optional(Type.Object({ allowAdHoc: Type.Optional(Type.Boolean({ default: false, description: 'The tool may run statements besides its declared queries (still confined to its own database).' })) }, { additionalProperties: false })),
    },
      { additionalProperties: false },
    ),
    description: "Settings of single tools, by tool name (docs/config.md); the key mcp is ATLAS's place for the mcp section, an alias of it.",
  },
);

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The one key of `tools` that is not a tool: ATLAS's MCP settings. */
const MCP_ALIAS = 'mcp';

/** Read `tools` (optional). */
export function readTools(reading: ConfigReading): ToolsSection {
  const { top, report, file } = reading;
  const section: ToolsSection = { settings: {}, locations: {}, location: at(file, top.has('tools') ? top.at('tools') : '') };
  const toolsReader = top.object('tools');
  if (!toolsReader) return section;
  for (const name of Object.keys(toolsReader.value)) {
    if (name === MCP_ALIAS) continue; // ATLAS's tools.mcp: read as the mcp section
    const value = toolsReader.raw(name);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      // not a tool's settings: another of ATLAS's tools.* keys, which toolcap does not read
      report('UNKNOWN_FIELD', `"tools.${name}" is not a tool's settings (those are objects); it is ignored. Of ATLAS's tools.* keys toolcap reads only tools.mcp.`, toolsReader.at(name), { key: true, severity: 'warning', hint: 'Remove it, or write the tool\'s settings as { configurations: …, sql: … }.' });
      continue;
    }
    const entry = toolsReader.object(name);
    if (!entry) continue;
    const settings: ToolSettings = {};
    const location: ToolSettingsLocation = { entry: at(file, entry.pointer, true), keys: {} };
    const configurations = entry.object('configurations');
    if (configurations) {
      location.configurations = at(file, configurations.pointer, true);
      settings.configurations = {};
      for (const key of Object.keys(configurations.value)) {
        const value = configurations.raw(key);
        const pointer = configurations.at(key);
        location.keys[key] = at(file, pointer);
        checkEnvReferences(value, pointer, report);
        settings.configurations[key] = value;
      }
      configurations.consume(...Object.keys(configurations.value));
    }
    const sql = entry.object('sql');
    if (sql) {
      const allowAdHoc = sql.boolean('allowAdHoc');
      sql.rest({ where: `tools.${name}.sql (known: allowAdHoc)` });
      settings.sql = allowAdHoc !== undefined ? { allowAdHoc } : {};
    }
    entry.rest({ where: `tools.${name} (known: configurations, sql)` });
    section.settings[name] = settings;
    section.locations[name] = location;
  }
  return section;
}

/** An object with an `env` key must be exactly `{ env: NAME }`: anything else would be passed on as a literal by mistake. */
function checkEnvReferences(value: unknown, pointer: string, report: ConfigReading['report'], depth = 0): void {
  if (depth > 16 || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) return value.forEach((v, i) => checkEnvReferences(v, joinPointer(pointer, i), report, depth + 1));
  if ('env' in value) {
    const name = envReference(value);
    if (name === undefined || !ENV_NAME.test(name))
      report('INVALID_VALUE', 'An environment reference is { env: NAME } and nothing else, NAME a variable name.', pointer, { hint: 'Write apiKey: { env: MY_API_KEY }, and set MY_API_KEY where toolcap runs.' });
    return;
  }
  for (const [k, v] of Object.entries(value)) checkEnvReferences(v, joinPointer(pointer, k), report, depth + 1);
}
