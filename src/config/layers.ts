/**
 * The layers a config stands for, in the order the registry loads them: what
 * MCP servers reported (the discovery cache), the sources, the persona
 * folders, then paths given besides the config. The one place the
 * discovered MCP layer is added; and the options the registry builds its
 * catalog with (the parse limits, the trusted module folders).
 * @module
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LayerSpec } from '../load/loader.js';
import type { CatalogOptions } from '../registry/catalog.js';
import { createPythonImportChecker } from '../runtime/providers/python-check.js';
import type { ParseLimits } from '../source/source.js';
import type { McpConfig } from './sections/mcp.js';
import type { PersonaFolder } from './sections/personas.js';
import type { RuntimeSection } from './sections/runtime.js';
import type { ConfigSource } from './sections/sources.js';

/** The sections of a config that name layers (a `Config` is one). */
export interface LayerSections {
  /** The config's folder: the MCP discovery cache lives below it. */
  root: string;
  sources: readonly ConfigSource[];
  personas: readonly PersonaFolder[];
  mcp: Pick<McpConfig, 'enabled'>;
}

/** Where discovered MCP tools are cached (one `mcp.<server>.json` per server): `.toolcap/mcp` beside the config. */
export function mcpCacheDir(config: Pick<LayerSections, 'root'>): string {
  return resolve(config.root, '.toolcap', 'mcp');
}

/**
 * The layers a config names, in order: the MCP discovery cache (when MCP is
 * enabled and the cache folder exists), its sources (with their dialects),
 * then its persona folders (each scoping its tools to its persona), then
 * `extra` paths (e.g. given on the command line).
 * @example buildCatalog(configLayers(config), { limits: config.limits })
 */
export function configLayers(config: LayerSections, extra: readonly string[] = []): LayerSpec[] {
  const cache = mcpCacheDir(config);
  return [
    // what MCP servers report comes first: every reviewed layer overrides it (floors aside)
    ...(config.mcp.enabled && existsSync(cache) ? [{ path: cache, discovered: true }] : []),
    ...config.sources.map((s): LayerSpec => ({ path: s.path, ...(s.dialect !== undefined ? { dialect: s.dialect } : {}) })),
    ...config.personas.map((p): LayerSpec => ({ path: p.path, persona: p.persona })),
    ...extra.map((path): LayerSpec => ({ path })),
  ];
}

/**
 * The catalog options a config sets: its parse limits, its trusted module
 * folders (a module tool elsewhere is MODULE_PATH_REFUSED) and the Python
 * import check. Every catalog
 * built from a config (the host's registry, `toolcap validate`) uses these.
 * @example buildCatalog(configLayers(config), configCatalogOptions(config))
 */
export function configCatalogOptions(config: { limits: ParseLimits; runtime: Pick<RuntimeSection, 'trustedModuleDirs'> & Partial<Pick<RuntimeSection, 'allowAuditStatus'>> }): Pick<CatalogOptions, 'limits' | 'trustedModuleDirs' | 'pythonImports' | 'allowAuditStatus'> {
  const { allowAuditStatus } = config.runtime;
  // Python tools' modules must import (MODULE_NOT_IMPORTABLE): Python is asked, once per project root
  return {
    limits: config.limits,
    trustedModuleDirs: [...config.runtime.trustedModuleDirs],
    pythonImports: createPythonImportChecker(),
    ...(allowAuditStatus !== undefined ? { allowAuditStatus: [...allowAuditStatus] } : {}),
  };
}
