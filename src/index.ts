/**
 * toolcap: a capability-manifest registry for the tools AI agents call.
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
export { defineDialect, DIALECT_IDS } from './dialects/types.js';
export type { Dialect, DialectId, ImportedDocument, CanonicalFragment, ExportedFile, ImportContext } from './dialects/types.js';
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
export { listTools, getTool, searchTools, searchAnswer, toolView, normalizedCapabilities, authScopes, NO_HEALTH } from './query/views.js';
export type { ToolView, ToolsPage, HealthSummary, HealthSource, SearchRequest, SearchResult, SearchAnswer, SearchCandidate } from './query/views.js';
export { createApi, etagMatches, MAX_QUERY_LENGTH, MAX_SEARCH_LIMIT } from './server/app.js';
export type { ApiOptions } from './server/app.js';
export { listen } from './server/listen.js';
export type { ListenOptions, RunningServer } from './server/listen.js';
export { openApiDocument } from './server/openapi.js';
export { problem, PROBLEM_CODES } from './server/problem.js';
export type { Problem, ProblemCode } from './server/problem.js';
export { Runtime } from './runtime/runtime.js';
export type { RuntimeOptions, CallContext, CallResult, ApprovalView, ProviderResolver } from './runtime/runtime.js';
export { CallError, CALL_ERROR_STATUS } from './runtime/errors.js';
export type { CallErrorCode } from './runtime/errors.js';
export { HealthBook, DEFAULT_BACKOFF } from './runtime/health.js';
export { approvalReason } from './runtime/policy.js';
export type { ApprovalRule } from './runtime/policy.js';
export { ProviderTypes, builtinProviderTypes } from './runtime/providers/provider-types.js';
export { ProviderError, ProviderConfigError } from './runtime/providers/types.js';
export type { ProviderType, ProviderInstance, ProviderCallContext, ProviderEnvironment, HealthCheckResult } from './runtime/providers/types.js';
export { fileTracer, JsonLinesSpanExporter } from './runtime/trace-file.js';
export { openStore } from './store/open.js';
export { openSqliteStore } from './store/sqlite.js';
export { openPostgresStore } from './store/postgres.js';
export { StoreUnavailableError, StoreVersionError } from './store/types.js';
export type { Store, ApprovalRecord, AuditRecord, CallRecord } from './store/types.js';
export { McpClients } from './mcp/clients.js';
export { translateTools } from './mcp/discovery.js';
export { createGatewayServer, mcpHttpHandler, mcpToolOf } from './mcp/gateway.js';
export type { McpConfig, McpServerConfig } from './mcp/config.js';
