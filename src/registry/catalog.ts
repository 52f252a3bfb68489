/**
 * A catalog: layers loaded, merged, completed with conservative readings and
 * linted. The one entry point the CLI and the library use.
 * @module
 */
import { loadLayers, type LayerInput, type LoadOptions } from '../load/loader.js';
import { complete } from '../model/derive.js';
import { sortDiagnostics, type Diagnostic, type Location } from '../model/diagnostics.js';
import type { Agent, BundleInfo, Job, Skill, Tool } from '../model/schema.js';
import type { DialectId } from '../dialects/types.js';
import { createSchemaChecker } from '../validate/json-schema.js';
import { lintHonesty } from '../validate/honesty.js';
import { lintEntryName, lintReferences, lintTool, type Locate, type Reference } from '../validate/rules.js';
import { entryLocator, locateField } from '../validate/locate.js';
import { gateByAuditStatus, type AuditGate } from './audit-gate.js';
import { lintSkillCoverage, type CoverageLocators } from '../validate/skill-coverage.js';
import { lintModulePaths } from '../validate/module-paths.js';
import { lintPythonImports, type PythonImportChecker, type PythonToolUse } from '../validate/python-imports.js';
import { pythonTargets } from '../load/python-modules.js';
import { mergeLayers, originPosition, type Entry, type MergedCatalog, type Origin, type SourceRef } from './merge.js';
import { placedDocuments } from './tool-reuse.js';
import type { BuildMemo } from './build-memo.js';

export interface CatalogOptions extends LoadOptions {
  /** Compile every input/output/config schema (slower, stricter). @default false */
  compileSchemas?: boolean;
  /**
   * Absolute folders besides a manifest's own that `module` tools may load
   * from (the config's `runtime.trustedModuleDirs`); a module elsewhere is
   * MODULE_PATH_REFUSED. @default []
   */
  trustedModuleDirs?: readonly string[];
  /**
   * Asks Python whether the modules of Python tools import (one process per
   * project root); failures are MODULE_NOT_IMPORTABLE. Absent: not asked.
   */
  pythonImports?: PythonImportChecker;
  /**
   * Audit states whose tools are exposed (the config's
   * `runtime.allowAuditStatus`); others are disabled with AUDIT_STATUS_GATED
   * (registry/audit-gate.ts). @default every state
   */
  allowAuditStatus?: readonly AuditGate[];
  /**
   * Results kept from the previous build with the same layers and options
   * (a registry's reloads): unchanged files are not parsed or imported again,
   * unchanged tools not completed or checked again. Absent: a fresh build.
   */
  memo?: BuildMemo;
}

/** A loaded catalog, with everything found on the way. */
export interface Catalog {
  bundles: BundleInfo[];
  tools: Array<Entry<Tool>>;
  skills: Array<Entry<Skill>>;
  agents: Array<Entry<Agent>>;
  jobs: Array<Entry<Job>>;
  /** Every loaded file by path: positions are looked up here on demand. */
  documents: ReadonlyMap<string, SourceRef>;
}

export interface CatalogResult {
  catalog: Catalog;
  diagnostics: Diagnostic[];
  /** A path could not be read at all. */
  unreadable: boolean;
  /** Source text by file, for rendering excerpts. */
  sources: Map<string, string>;
}

/**
 * Load layers (in order), merge, complete and lint. A layer is a path, or
 * `{ path, dialect?, persona? }` (a persona folder scopes its tools).
 * @example
 * const { catalog, diagnostics } = buildCatalog(['examples/']);
 */
export function buildCatalog(layers: readonly LayerInput[], options: CatalogOptions = {}): CatalogResult {
  const memo = options.memo;
  const loaded = loadLayers(layers, memo ? { ...options, cache: memo.imports } : options);
  // the files a reload did not change keep their tool entries whole, when the changed ones stand apart
  const reused = memo?.kept.reuse(loaded.layers, memo.origins);
  const merged = mergeLayers(loaded.layers, memo?.origins, reused ? 'rest' : 'all');
  const toolMerge = reused?.merge ?? merged.tools;
  const diagnostics = [...loaded.diagnostics, ...(reused ? toolMerge.diagnostics : []), ...merged.diagnostics];
  const checkSchema = createSchemaChecker({ compile: options.compileSchemas ?? false });
  /** Per-tool findings: found while completing (memoised builds), reused whole, or found by the lint below. */
  const perTool = reused?.findings ?? new Map<Entry<Tool>, readonly Diagnostic[]>();
  // the merged entry is this build's own: completing it in place saves a copy per tool
  const completeEntry = (entry: Entry<Tool>): Entry<Tool> => {
    const merged0 = entry.value;
    let value: Tool;
    let findings: readonly Diagnostic[] | undefined;
    const only = entry.origins.length === 1 && !entry.fieldOrigins ? entry.origins[0] : undefined;
    if (memo && only) {
      // a value seen at the same place last build: its completion and findings are the same
      ({ completed: value, findings } = memo.tool(merged0, only.file, only.pointer, () => {
        const completed = complete(merged0);
        return { completed, findings: toolFindings(completed, entryLocator('tool', entry, merged.catalog.documents), checkSchema) };
      }));
    } else {
      value = complete(merged0);
    }
    // nothing translated: everything derived was assumed (share the list)
    let assumed: readonly string[] = value.derived ?? [];
    if (merged0.derived?.length) {
      const translated = new Set(merged0.derived);
      assumed = assumed.filter((p) => !translated.has(p));
    }
    entry.value = value;
    entry.assumed = assumed;
    if (findings) perTool.set(entry, findings);
    return entry;
  };
  let tools: Array<Entry<Tool>>;
  if (reused) {
    for (const entry of reused.fresh) completeEntry(entry);
    memo!.reusedEntries(reused.tools.length - reused.fresh.length);
    tools = reused.tools;
  } else {
    tools = merged.catalog.tools.map(completeEntry);
  }
  const catalog: Catalog = {
    bundles: merged.catalog.bundles,
    tools,
    skills: merged.catalog.skills,
    agents: merged.catalog.agents,
    jobs: merged.catalog.jobs,
    // keep text and positions, let the parsed values and imported copies go
    documents: new Map([...merged.catalog.documents].map(([path, d]) => [path, { file: { path: d.file.path, text: d.file.text, locate: d.file.locate }, dialect: d.dialect }])),
  };
  diagnostics.push(...lint(catalog, merged.catalog, options, checkSchema, perTool));
  // every entry's findings are known now: the next build may reuse this one's entries
  memo?.kept.keep({ docs: reused?.docs ?? placedDocuments(loaded.layers), merge: toolMerge, tools: catalog.tools.slice(), findings: perTool });
  if (options.allowAuditStatus !== undefined) {
    catalog.tools = catalog.tools.map((entry) => {
      const gated = gateByAuditStatus(entry.value, options.allowAuditStatus, entryLocator('tool', entry, merged.catalog.documents));
      if (gated.diagnostic) diagnostics.push(gated.diagnostic);
      return gated.tool === entry.value ? entry : { ...entry, value: gated.tool };
    });
  }
  const sources = new Map<string, string>();
  for (const [path, doc] of merged.catalog.documents) sources.set(path, doc.file.text);
  return { catalog, diagnostics: sortDiagnostics(diagnostics), unreadable: loaded.unreadable, sources };
}

/** The findings about one tool on its own (what a memo may keep: no file system, no other tool). */
function toolFindings(tool: Tool, locate: ReturnType<typeof entryLocator>, checkSchema: ReturnType<typeof createSchemaChecker>): Diagnostic[] {
  const found = lintTool(tool, locate, checkSchema);
  const honesty = lintHonesty(tool, locate);
  // most tools have no findings: no new array for them
  return honesty.length === 0 ? found : found.length === 0 ? honesty : found.concat(honesty);
}

function lint(
  catalog: Catalog,
  merged: MergedCatalog,
  options: CatalogOptions,
  checkSchema: ReturnType<typeof createSchemaChecker>,
  perTool: Map<Entry<Tool>, readonly Diagnostic[]>,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const references: Reference[] = [];
  const python: PythonToolUse[] = [];
  // One locator for the loop, over the entry at hand (the rules use it only while they run): not a
  // closure per tool. A tool whose findings are looked up later (python, references) gets its own.
  let current: Entry<Tool> | undefined;
  const locateCurrent: Locate = (path, below) => locateField('tool', current!, merged.documents, path, below);
  const trusted = options.trustedModuleDirs ?? [];
  for (const entry of catalog.tools) {
    current = entry;
    const manifest = entry.origins[0]?.file;
    if (options.pythonImports && manifest !== undefined && pythonTargets(entry.value).length > 0) python.push({ tool: entry.value, manifest, locate: entryLocator('tool', entry, merged.documents) });
    let findings = perTool.get(entry);
    if (findings === undefined) {
      findings = toolFindings(entry.value, locateCurrent, checkSchema);
      // kept with the entry for the next build (a finding is located when made)
      if (options.memo) perTool.set(entry, findings);
    }
    for (let i = 0; i < findings.length; i++) out.push(findings[i]!);
    if (manifest !== undefined) for (const d of lintModulePaths(entry.value, manifest, trusted, locateCurrent)) out.push(d);
    if (entry.value.alternatives?.length) {
      const locate = entryLocator('tool', entry, merged.documents);
      references.push({ from: `Tool "${entry.value.name}"`, kind: 'tool', names: entry.value.alternatives, field: 'alternatives', locate: () => locate('alternatives') });
    }
  }
  current = undefined;
  const refs = (entries: ReadonlyArray<Entry<{ name: string; tools?: string[]; skills?: string[] }>>, what: 'Skill' | 'Agent' | 'Job') => {
    const kind = ({ Skill: 'skill', Agent: 'agent', Job: 'job' } as const)[what];
    for (const entry of entries) {
      const locate = entryLocator(kind, entry, merged.documents);
      out.push(...lintEntryName(what, entry.value.name, locate));
      const from = `${what} "${entry.value.name}"`;
      references.push({ from, kind: 'tool', names: entry.value.tools, field: 'tools', locate: () => locate('tools') });
      references.push({ from, kind: 'skill', names: entry.value.skills, field: 'skills', locate: () => locate('skills') });
    }
  };
  refs(catalog.skills, 'Skill');
  refs(catalog.agents, 'Agent');
  refs(catalog.jobs, 'Job');
  // An entry may be named by its canonical name or by the id its own format uses (ATLAS "ResearchBrief").
  const names = (entries: ReadonlyArray<Entry<{ name: string; id?: string }>>) => {
    const set = new Set<string>();
    for (const { value } of entries) {
      set.add(value.name);
      if (value.id !== undefined) set.add(value.id);
    }
    return set;
  };
  // the set of 10,000 tool names only when some reference names a tool
  const namesTools = references.some((ref) => ref.kind === 'tool' && (ref.names?.length ?? 0) > 0);
  const known = { tools: namesTools ? names(catalog.tools) : new Set<string>(), skills: names(catalog.skills) };
  out.push(...lintReferences(references, known));
  if (options.pythonImports && python.length > 0) out.push(...lintPythonImports(python, options.pythonImports, options.trustedModuleDirs ?? []));
  out.push(...lintSkillCoverage(catalogDocument(catalog), coverageLocators(catalog, merged)));
  return out;
}

/**
 * The Python import check of a built catalog: what a build in the worker
 * leaves to the main thread, where the checker (a function) lives.
 */
export function lintCatalogPythonImports(catalog: Catalog, checker: PythonImportChecker, trusted: readonly string[]): Diagnostic[] {
  const python: PythonToolUse[] = [];
  for (const entry of catalog.tools) {
    const manifest = entry.origins[0]?.file;
    if (manifest !== undefined && pythonTargets(entry.value).length > 0) python.push({ tool: entry.value, manifest, locate: entryLocator('tool', entry, catalog.documents) });
  }
  return python.length > 0 ? lintPythonImports(python, checker, trusted) : [];
}

/** Locators of the skills, agents and jobs by canonical name, for the skill coverage check. */
function coverageLocators(catalog: Catalog, merged: MergedCatalog): CoverageLocators {
  const of = (kind: 'skill' | 'agent' | 'job', entries: ReadonlyArray<Entry<{ name: string }>>) => (name: string) => {
    const entry = entries.find((e) => e.value.name === name);
    return entry === undefined ? undefined : entryLocator(kind, entry, merged.documents);
  };
  return { skill: of('skill', catalog.skills), agent: of('agent', catalog.agents), job: of('job', catalog.jobs) };
}

/**
 * The tools one persona sees: shared tools plus that persona's, a persona's
 * own version shadowing a shared one of the same name; disabled tools left
 * out. Without a persona: every enabled entry, shared or scoped.
 */
export function personaTools(catalog: Catalog, persona?: string): Tool[] {
  const scoped = (t: Tool) => (t.scope?.personas?.length ?? 0) > 0;
  let tools: Tool[];
  if (persona === undefined) {
    tools = catalog.tools.map((e) => e.value);
  } else {
    const byName = new Map<string, Tool>();
    for (const { value } of catalog.tools) {
      if (scoped(value) && !value.scope?.personas?.includes(persona)) continue;
      const current = byName.get(value.name);
      if (current && scoped(current) && !scoped(value)) continue; // the persona's own version wins
      byName.set(value.name, value);
    }
    tools = [...byName.values()];
  }
  return tools.filter((t) => t.enabled !== false).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The canonical document of a catalog (or of one persona's view of it). */
export function catalogDocument(catalog: Catalog, persona?: string): { tools: Tool[]; skills: Skill[]; agents: Agent[]; jobs: Job[] } {
  const tools = persona === undefined ? catalog.tools.map((e) => e.value) : personaTools(catalog, persona);
  const visible = (personas: readonly string[] | undefined) => persona === undefined || !personas || personas.length === 0 || personas.includes(persona);
  return {
    tools,
    skills: catalog.skills.map((e) => e.value),
    agents: catalog.agents.map((e) => e.value).filter((a) => persona === undefined || a.persona === undefined || a.persona === persona),
    jobs: catalog.jobs.map((e) => e.value).filter((j) => visible(j.personas)),
  };
}

/**
 * The catalog's tools as a dialect should export them. Writing back to a
 * tool's own format, dialect-derived values stay derived (the format says
 * them in its own words); writing to another format, they become
 * declarations, since that format has no other way to say them. Values
 * toolcap merely assumed are never written as declarations.
 */
export function toolsForExport(catalog: Catalog, target: DialectId): Tool[] {
  return catalog.tools.map((e) => {
    if (e.origins[0]?.dialect === target) return e.value;
    const assumed = e.assumed ?? [];
    return assumed.length > 0 ? { ...e.value, derived: [...assumed] } : (({ derived: _d, ...rest }) => rest)(e.value);
  });
}

/** An origin with its line and column. */
export type PositionedOrigin = Origin & { line?: number; column?: number };

/** Provenance of every tool, keyed like the merge (name, or name@personas), with source positions. */
export function provenance(catalog: Catalog): Record<string, PositionedOrigin[]> {
  const out: Record<string, PositionedOrigin[]> = Object.create(null) as Record<string, PositionedOrigin[]>;
  for (const entry of catalog.tools) out[entry.key] = entry.origins.map((o) => ({ ...o, ...originPosition(o, catalog.documents) }));
  return out;
}
