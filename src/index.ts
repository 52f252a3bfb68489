/**
 * toolcap: a capability-manifest registry for the tools AI agents call.
 * This entry is the catalog: read every format, validate, merge, query,
 * rank and diff. It loads no database driver, MCP SDK or HTTP framework;
 * those are in the subpath entries `toolcap/runtime`, `toolcap/store`,
 * `toolcap/server`, `toolcap/mcp` and `toolcap/host` (docs/architecture.md).
 *
 * @example
 * import { buildCatalog, personaTools } from 'toolcap';
 * const { catalog, diagnostics } = buildCatalog(['examples/catalog']);
 * const tools = personaTools(catalog, 'Atlas');
 * @module
 */
export {
  SIDE_EFFECTS,
  RISK_LEVELS,
  MODES,
  REVERSIBILITY,
  RETRY_CLASSES,
  COST_LANES,
  AUTH_TYPES,
  SURFACE_DOMAINS,
  SURFACE_OPERATIONS,
  TASK_ROLES,
  AUDIT_STATUSES,
  rank,
  mostRestrictive,
} from './model/vocabulary.js';
export type { SideEffect, RiskLevel, Mode, Reversibility, RetryClass, CostLane, AuthType } from './model/vocabulary.js';
export { ToolSchema, SkillSchema, AgentSchema, JobSchema, CatalogSchema, canonicalJsonSchema } from './model/schema.js';
export type { Tool, Skill, Agent, Job, BundleInfo, CatalogDocument, Effects, Auth, Execution, Provider, Surface, JsonSchema } from './model/schema.js';
export { DIAGNOSTIC_CODES, SEVERITIES, hasFailures } from './model/diagnostics.js';
export type { Diagnostic, DiagnosticCode, Severity, Location } from './model/diagnostics.js';
export { complete, declared, isDerived, DEFAULT_TIMEOUT_SEC } from './model/derive.js';
export { canonicalJson, jsonEqual } from './model/objects.js';
export { DIALECTS, getDialect, detectDialect, dialectIds } from './dialects/lookup.js';
export { defineDialect, DIALECT_IDS, fieldSuffix } from './dialects/types.js';
export type { Dialect, DialectId, ImportedDocument, CanonicalFragment, ExportedFile, ImportContext, EntryKind, FieldMap, FieldMaps } from './dialects/types.js';
export { parseSource, DEFAULT_LIMITS } from './source/source.js';
export type { ParseLimits, SourceFile } from './source/source.js';
export { loadLayers, layerPath } from './load/loader.js';
export type { LoadOptions, Layer, LayerInput, LayerSpec, LoadedDocument, LoadResult } from './load/loader.js';
export { mergeLayers, toolKey } from './registry/merge.js';
export type { Entry, Origin } from './registry/merge.js';
export { buildCatalog, personaTools, catalogDocument, provenance } from './registry/catalog.js';
export type { Catalog, CatalogOptions, CatalogResult } from './registry/catalog.js';
export { toolHash, contentHash, HASH_PREFIX } from './model/hash.js';
export { diffCatalogs, diffTool, summarizeDiff } from './drift/diff.js';
export { isVersionBump } from './drift/version.js';
export type { ToolDiff, CatalogDiff } from './drift/diff.js';
export type { FieldChange, ChangeClass } from './drift/changes.js';
export { effectEvidence, inferWrites } from './model/evidence.js';
export type { Evidence, Verdict } from './model/evidence.js';
export { loadConfig, configLayers, DEFAULT_CONFIG_FILE } from './config/config.js';
export { filterTools, matchesFilter } from './query/filters.js';
export type { ToolFilter, FilterResult, FilteredTool, HealthLookup } from './query/filters.js';
export { parseFilter } from './query/params.js';
export { buildSearchIndex, search } from './query/search.js';
export type { SearchIndex, SearchHit } from './query/search.js';
export { rankTools, queryIntent, DEFAULT_RANK_WEIGHTS } from './query/rank.js';
export type { Ranking, Candidate, Penalty, RankOptions, RankWeights, Intent } from './query/rank.js';
export { explainRanking } from './query/explain.js';
export type { Explanation, CandidateExplanation } from './query/explain.js';
export { Registry, RegistryNotReadyError, watchFiles, DEFAULT_DEBOUNCE_MS } from './registry/registry.js';
export type { RegistryOptions, RegistryStatus, ReloadEvent, ChangeSource } from './registry/registry.js';
export { summarizeCatalog, summarizeJobs } from './registry/summary.js';
export type { CatalogSummary, JobSummary, JobProblem, JobRequirements } from './registry/summary.js';
export { listTools, getTool, searchTools, searchAnswer, toolView, normalizedCapabilities, authScopes } from './query/views.js';
export { NO_HEALTH } from './model/health.js';
export type { ToolView, ToolsPage, SearchRequest, SearchResult, SearchAnswer, SearchCandidate } from './query/views.js';
export type { HealthSummary, HealthSource } from './model/health.js';
export { errorMessage } from './model/errors.js';
