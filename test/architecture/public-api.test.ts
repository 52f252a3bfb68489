/**
 * The public surface, pinned: the names each entry point exports (a change
 * here is a change to the package's API and must be made on purpose), their
 * most used types, and that the catalog entry loads no database driver, MCP
 * SDK or HTTP framework.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as catalog from '../../src/index.js';
import * as host from '../../src/entries/host.js';
import * as mcp from '../../src/entries/mcp.js';
import * as runtime from '../../src/entries/runtime.js';
import * as server from '../../src/entries/server.js';
import * as store from '../../src/entries/store.js';
import { staticClosure } from './static-imports.js';


const PINNED: Record<string, { module: Record<string, unknown>; names: string[] }> = {
  toolcap: {
    module: catalog,
    names: [
      'AUDIT_STATUSES', 'AUTH_TYPES', 'AgentSchema', 'COST_LANES', 'CatalogSchema', 'DEFAULT_CONFIG_FILE', 'DEFAULT_DEBOUNCE_MS', 'DEFAULT_LIMITS',
      'DEFAULT_RANK_WEIGHTS', 'DEFAULT_TIMEOUT_SEC', 'DIAGNOSTIC_CODES', 'DIALECTS', 'DIALECT_IDS', 'HASH_PREFIX', 'JobSchema', 'MODES', 'NO_HEALTH',
      'RETRY_CLASSES', 'REVERSIBILITY', 'RISK_LEVELS', 'Registry', 'RegistryNotReadyError', 'SEVERITIES', 'SIDE_EFFECTS', 'SURFACE_DOMAINS',
      'SURFACE_OPERATIONS', 'SkillSchema', 'TASK_ROLES', 'ToolSchema', 'authScopes', 'buildCatalog', 'buildSearchIndex', 'canonicalJson',
      'canonicalJsonSchema', 'catalogDocument', 'complete', 'configLayers', 'contentHash', 'declared', 'defineDialect', 'detectDialect', 'dialectIds',
      'diffCatalogs', 'diffTool', 'effectEvidence', 'errorMessage', 'explainRanking', 'fieldSuffix', 'filterTools', 'getDialect', 'getTool',
      'hasFailures', 'inferWrites', 'isDerived', 'isVersionBump', 'jsonEqual', 'layerPath', 'listTools', 'loadConfig', 'loadLayers', 'matchesFilter',
      'mergeLayers', 'mostRestrictive', 'normalizedCapabilities', 'parseFilter', 'parseSource', 'personaTools', 'provenance', 'queryIntent', 'rank',
      'rankTools', 'search', 'searchAnswer', 'searchTools', 'summarizeCatalog', 'summarizeDiff', 'summarizeJobs', 'toolHash', 'toolKey', 'toolView',
      'watchFiles',
    ],
  },
  'toolcap/runtime': {
    module: runtime,
    names: [
      'ACTIONS', 'Authenticator', 'CALL_ERROR_STATUS', 'CallError', 'CallRateLimiter', 'DEFAULT_BACKOFF', 'EgressError', 'EgressGuard', 'HealthBook',
      'JsonLinesSpanExporter', 'OAuthConnectError', 'OAuthVault', 'ProviderConfigError', 'ProviderError', 'ProviderTypes', 'ROLES', 'Runtime', 'allowedPersonas', 'approvalReason',
      'backoffDelay', 'builtinProviderTypes', 'callErrorWire', 'can', 'connectCommand', 'connectOAuth', 'createRedactor', 'fileTracer', 'issueApiKey', 'mayDecide', 'parseApiKey',
      'providerFault', 'raceAbort', 'recordedArguments', 'resolveAuthConfig', 'resolvePersona', 'ToolServices',
      'ProbeAdapters', 'builtinProbeAdapters', 'taskSnapshot', 'isTaskSource', 'withProbeFiles',
      'createTracing', 'RedactingSpanExporter', 'traceSettings', 'TRACE_EXPORTERS', 'OTLP_PROTOCOLS', 'Selections', 'SELECTION_ID',
    ],
  },
  'toolcap/store': { module: store, names: ['StoreUnavailableError', 'StoreVersionError', 'openPostgresStore', 'openSqliteStore', 'openStore'] },
  'toolcap/server': {
    module: server,
    names: ['ApiProblem', 'MAX_QUERY_LENGTH', 'MAX_SEARCH_LIMIT', 'PROBLEM_CODES', 'createApi', 'etagMatches', 'listen', 'openApiDocument', 'problem'],
  },
  'toolcap/mcp': {
    module: mcp,
    names: [
      'BoundedStdioServerTransport', 'CALL_TOOL', 'CAPABILITY_META_KEY', 'ContainedStdioClientTransport', 'GATEWAY_TOOLS_MODES', 'MAX_STDIO_LINE_BYTES', 'McpClients',
      'SEARCH_TOOL', 'createGatewayServer', 'mcpHttpHandler', 'mcpToolOf', 'translateTools',
    ],
  },
  'toolcap/host': { module: host, names: ['ToolcapOpenError', 'createToolcap'] },
};

describe('the public surface', () => {
  it.each(Object.entries(PINNED))('%s exports exactly the pinned names', (_entry, { module, names }) => {
    expect(Object.keys(module).sort()).toEqual([...names].sort());
    for (const name of names) expect(module[name], name).toBeDefined();
  });

  it('keeps the types users build on', () => {
    expectTypeOf(catalog.buildCatalog).returns.toHaveProperty('catalog');
    expectTypeOf<catalog.Tool['name']>().toEqualTypeOf<string>();
    expectTypeOf<catalog.Diagnostic['severity']>().toEqualTypeOf<catalog.Severity>();
    expectTypeOf(host.createToolcap).returns.resolves.toEqualTypeOf<host.Toolcap>();
    expectTypeOf<host.Toolcap['runtime']>().toEqualTypeOf<runtime.Runtime>();
    expectTypeOf<host.Toolcap['close']>().returns.resolves.toBeVoid();
    expectTypeOf<runtime.Runtime['call']>().returns.resolves.toEqualTypeOf<runtime.CallResult>();
    expectTypeOf(runtime.callErrorWire).returns.toEqualTypeOf<runtime.WireCallError>();
    expectTypeOf(store.openStore).returns.resolves.toMatchTypeOf<store.Store>();
    expectTypeOf(server.createApi).parameter(0).toEqualTypeOf<catalog.Registry>();
  });

  it('the catalog entry loads no database driver, MCP SDK, HTTP framework or token library', async () => {
    const { sources, packages } = await staticClosure('src/index.ts');
    expect(sources.length).toBeGreaterThan(50);
    for (const heavy of ['better-sqlite3', 'pg', '@modelcontextprotocol/sdk', 'hono', '@hono/node-server', 'jose', 'rate-limiter-flexible', '@opentelemetry/sdk-trace-base', 'prom-client']) {
      expect(packages, heavy).not.toContain(heavy);
    }
    expect(packages).toContain('yaml'); // it did look at packages
  }, 60_000);
});
