/**
 * Module containment at load time: a `module` tool may load only from its
 * manifest's folder or a folder the config trusts (`runtime.trustedModuleDirs`).
 * The module provider refuses anything else before importing it; this rule
 * says so when the catalog is built, at the line that names the module, so
 * `toolcap validate` fails instead of a call being refused later.
 *
 * It judges what the runtime would load: every provider entry of type
 * `module` (`config.type: module`, or an entry named `module` without a
 * type), taking `config.module` or else `implementation.module`; and, for a
 * tool without providers, `implementation.module`. A package that cannot be
 * resolved is not reported: that is readiness (not installed), and a Pylot
 * `module` is a Python import path that the runtime never reaches.
 * @module
 */
import { dirname, resolve } from 'node:path';
import { moduleAllowed } from '../load/module-paths.js';
import { diagnostic, type Diagnostic } from '../model/diagnostics.js';
import type { Provider, Tool } from '../model/schema.js';
import type { Locate } from './rules.js';

/** Implementation languages the module provider runs; others never reach it (module-config.ts refuses them). */
const JS_LANGUAGES = new Set(['javascript', 'typescript', 'js', 'ts', 'node', 'nodejs', 'deno', 'bun']);

/** One module the runtime would load for a tool, and where the manifest names it. */
interface ModuleUse {
  spec: string;
  /** The canonical field and the pointer below it that name the module. */
  field: string;
  below?: string;
}

function isModuleEntry(entry: Provider): boolean {
  const type = entry.config?.['type'];
  return typeof type === 'string' && type !== '' ? type === 'module' : entry.name === 'module';
}

/** The module the implementation names, when the module provider would run it. */
function implementationModule(tool: Tool): ModuleUse | undefined {
  const spec = tool.implementation?.module;
  const language = tool.implementation?.language;
  if (spec === undefined || spec === '' || (language !== undefined && !JS_LANGUAGES.has(language.toLowerCase()))) return undefined;
  return { spec, field: 'implementation.module' };
}

/** Every module the runtime would load for `tool`, in manifest order. */
function moduleUses(tool: Tool): ModuleUse[] {
  const providers = tool.providers ?? [];
  // no providers: the implementation runs as one `module` slot
  if (providers.length === 0) return [implementationModule(tool)].filter((u) => u !== undefined);
  return providers.flatMap((entry, i): ModuleUse[] => {
    if (!isModuleEntry(entry)) return [];
    const own = entry.config?.['module'];
    if (own === undefined) return [implementationModule(tool)].filter((u) => u !== undefined);
    // a module that is not a string is the provider's config error, reported when it is made
    return typeof own === 'string' && own !== '' ? [{ spec: own, field: 'providers', below: `/${i}/config/module` }] : [];
  });
}

/**
 * MODULE_PATH_REFUSED for every module `tool` would load from outside its
 * manifest's folder and the trusted folders: a path out of the folder, an
 * absolute path or `file:` URL elsewhere, a symlink leading outside, a Node
 * built-in, another URL, or a package installed outside.
 * @param manifest the file that first defined the tool (its folder is where relative modules resolve, as in the runtime)
 * @param trusted absolute folders the config trusts (`runtime.trustedModuleDirs`)
 * @example lintModulePaths(tool, 'manifests/tools.yaml', ['/srv/shared-tools'], locate)
 */
export function lintModulePaths(tool: Tool, manifest: string, trusted: readonly string[], locate: Locate): Diagnostic[] {
  // nothing runs a module: no lists built to find that out (most tools of a large catalog)
  if (tool.providers === undefined && tool.implementation?.module === undefined) return [];
  // providers, none of them a module (most tools that have providers): none of moduleUses' lists either
  if (tool.providers !== undefined && tool.providers.length > 0 && !tool.providers.some(isModuleEntry)) return [];
  const uses = moduleUses(tool);
  if (uses.length === 0) return [];
  const baseDir = dirname(resolve(manifest));
  const out: Diagnostic[] = [];
  for (const use of uses) {
    const verdict = moduleAllowed(use.spec, baseDir, trusted);
    if (verdict.ok || verdict.refusal === 'unresolved') continue;
    const hint =
      verdict.refusal === 'outside'
        ? "Move the module into the manifest's folder, or list its folder in the config's runtime.trustedModuleDirs."
        : "A module tool runs a JavaScript file of its own: point it at a file in the manifest's folder (or use a command provider).";
    out.push(diagnostic('MODULE_PATH_REFUSED', `Tool "${tool.name}" would load a module it may not: ${verdict.reason}.`, { ...locate(use.field, use.below), hint }));
  }
  return out;
}
