/**
 * The `tools` section held against the catalog: each tool's configuration
 * values checked against its declared schema (runtime/tool-configurations.ts
 * does the checking; this puts the findings where they are written in the
 * config). A finding is TOOL_CONFIGURATION_INVALID, a warning: that tool is
 * unavailable, with the reason, and every other tool runs. Settings for a
 * tool the catalog does not have are UNKNOWN_REFERENCE.
 * @module
 */
import { diagnostic, type Diagnostic, type Location } from '../model/diagnostics.js';
import type { Tool } from '../model/schema.js';
import { resolveConfiguration } from '../runtime/tool-configurations.js';
import { dirname, join } from 'node:path';
import type { ToolServicesOptions } from '../runtime/tool-services.js';
import type { StoreConfig } from '../store/open.js';
import type { Config } from './config.js';
import type { ToolsSection } from './sections/tools.js';

/**
 * Findings for the tools of a catalog against the config's `tools` section.
 * @example toolSettingsDiagnostics(config.tools, snapshot.tools, process.env)
 */
export function toolSettingsDiagnostics(section: ToolsSection, tools: readonly Tool[], env: Readonly<Record<string, string | undefined>>): Diagnostic[] {
  const out: Diagnostic[] = [];
  const names = new Set(tools.map((t) => t.name));
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    const settings = section.settings[tool.name];
    if (tool.configSchema === undefined && settings?.configurations === undefined) continue;
    const { problems } = resolveConfiguration(tool, settings, env);
    const where = section.locations[tool.name];
    for (const p of problems) {
      const key = p.pointer.split('/')[1];
      const location: Location = (key !== undefined ? where?.keys[key] : undefined) ?? where?.configurations ?? where?.entry ?? section.location;
      out.push(
        diagnostic('TOOL_CONFIGURATION_INVALID', `Tool "${tool.name}" is unavailable: ${p.message}.`, {
          ...location,
          hint: p.hint ?? `Give it in the config: tools: { ${tool.name}: { configurations: { ${key ?? 'name'}: ... } } } (a secret as { env: NAME }).`,
        }),
      );
    }
  }
  for (const [name, where] of Object.entries(section.locations)) {
    if (!names.has(name)) out.push(diagnostic('UNKNOWN_REFERENCE', `The config has settings for "${name}", which is not a tool of the catalog.`, { ...where.entry, hint: 'Use the canonical tool name (toolcap query lists them).' }));
  }
  return out;
}

/**
 * The tool services of a toolcap opened on `config` (or none) with its store
 * at `store`: the `tools` settings, `runtime.results`, and the tools' own
 * databases in the store's place (`tools/` beside an SQLite store file; one
 * schema per tool in a PostgreSQL store).
 * @example new Runtime({ ..., services: new ToolServices(toolServicesOptions(config, config.store)) })
 */
export function toolServicesOptions(config: Pick<Config, 'tools' | 'runtime'> | undefined, store: StoreConfig): ToolServicesOptions {
  return {
    settings: config?.tools.settings ?? {},
    results: config?.runtime.results ?? 'warn',
    databases: store.kind === 'sqlite' ? { kind: 'sqlite', dir: join(dirname(store.path), 'tools') } : { kind: 'postgres', url: store.url },
  };
}

/** A diagnostic on one line, `file:line:col: CODE message (hint)`, for warnings. */
export function diagnosticLine(d: Diagnostic): string {
  const where = [d.file, d.line, d.column].filter((x) => x !== undefined).join(':');
  return `${where ? `${where}: ` : ''}${d.code} ${d.message}${d.hint ? ` (${d.hint})` : ''}`;
}
