/**
 * The canonical toolcap manifest, as one TypeBox schema.
 *
 * This file is the single source of both the published JSON Schema
 * (`schema/toolcap.schema.json`, generated from it and checked by a test)
 * and the TypeScript types (`Static<typeof ToolSchema>`).
 * @module
 */
import { Type, type ObjectOptions, type Static, type TProperties, type TSchema } from '@sinclair/typebox';
import {
  AUDIT_STATUSES,
  AUTH_TYPES,
  CAPABILITY_PATTERN,
  COST_LANES,
  MODES,
  RETRY_CLASSES,
  REVERSIBILITY,
  RISK_LEVELS,
  SIDE_EFFECTS,
  SURFACE_DOMAINS,
  SURFACE_OPERATIONS,
  TASK_ROLES,
  TOOL_NAME_PATTERN,
} from './vocabulary.js';

/** A string limited to one closed vocabulary, emitted as a plain JSON Schema `enum`. */
function StringEnum<const T extends readonly string[]>(values: T, description: string) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], description });
}

const Strings = (description: string) => Type.Array(Type.String(), { description });
const JsonObject = (description: string) =>
  Type.Record(Type.String(), Type.Unknown(), { description });

/** A JSON Schema: an object or a boolean. */
export const JsonSchemaSchema = Type.Unsafe<Record<string, unknown> | boolean>({
  // anyOf, not `type: [object, boolean]`: Ajv's strict mode refuses union types unless allowUnionTypes
  anyOf: [{ type: 'object', additionalProperties: true }, { type: 'boolean' }],
  description: 'A JSON Schema (2020-12 unless it says otherwise with $schema).',
});

/**
 * What every canonical object is: closed (`additionalProperties: false`, so
 * an editor flags `efects:` or `approvl:`), with keys starting `x-` as the
 * one open door besides the `extensions` and `metadata` records.
 */
export const CLOSED = { additionalProperties: false, patternProperties: { '^x-': {} } } as const;

/** A closed canonical object (see {@link CLOSED}). */
const Closed = <T extends TProperties>(properties: T, options: ObjectOptions = {}) => Type.Object(properties, { ...options, ...CLOSED });

const Derived = Type.Array(Type.String(), {
  description:
    'Canonical field paths (dot-separated, e.g. "effects.sideEffects") whose values toolcap derived ' +
    'because the source format was silent (conservative readings) or said it in other words. Writing back to the same format omits them; ' +
    'writing to another format keeps translated values and omits readings of silence.',
});
const Extensions = Type.Record(Type.String(), JsonObject('Fields of one dialect with no canonical home, kept verbatim.'), {
  description: 'Per-dialect fields with no canonical home, keyed by dialect id. Kept so export gives back the source.',
});

export const EffectsSchema = Closed(
  {
    mode: Type.Optional(StringEnum(MODES, 'Whether the tool reads, writes, or both.')),
    sideEffects: Type.Optional(StringEnum(SIDE_EFFECTS, 'The strongest external interaction (ATLAS categories).')),
    external: Type.Optional(Type.Boolean({ description: 'Whether the tool touches anything outside the agent process.' })),
    reversible: Type.Optional(StringEnum(REVERSIBILITY, 'How far the effect can be undone.')),
    rollbackHint: Type.Optional(Type.String({ description: 'How to undo the effect.' })),
    deterministic: Type.Optional(Type.Boolean({ description: 'Same input gives the same output.' })),
    risk: Type.Optional(StringEnum(RISK_LEVELS, 'Blast radius if the call is wrong.')),
  },
  { description: 'What calling the tool changes.' },
);

export const HintsSchema = Closed(
  {
    readOnly: Type.Optional(Type.Boolean({ description: 'The tool reports it changes nothing (MCP readOnlyHint).' })),
    destructive: Type.Optional(Type.Boolean({ description: 'Its changes may destroy data (MCP destructiveHint).' })),
    idempotent: Type.Optional(Type.Boolean({ description: 'Repeating a call changes nothing more (MCP idempotentHint).' })),
    openWorld: Type.Optional(Type.Boolean({ description: 'It reaches outside systems (MCP openWorldHint).' })),
  },
  {
    description:
      'Behaviour hints the tool reports about itself (MCP annotations), kept as evidence. They may tighten ' +
      'what a reviewed manifest declares, never loosen it.',
  },
);

export const ApprovalSchema = Closed(
  {
    required: Type.Optional(Type.Boolean({ description: 'A person must approve each call.' })),
    consent: Type.Optional(Type.Boolean({ description: 'The end user must consent (ATLAS requires_consent).' })),
  },
  { description: 'Human approval and consent.' },
);

export const EnvRequirementSchema = Closed(
  {
    required: Type.Optional(Type.Boolean()),
    optional: Type.Optional(Type.Boolean()),
    description: Type.Optional(Type.String()),
  },
  { description: 'One environment variable the tool reads.' },
);

export const OAuthSchema = Closed(
  {
    name: Type.Optional(Type.String()),
    version: Type.Optional(Type.String()),
    authorizationUrl: Type.Optional(Type.String()),
    redirectUrl: Type.Optional(Type.String()),
    tokenUrl: Type.Optional(Type.String()),
    clientId: Type.Optional(Type.String()),
    clientSecret: Type.Optional(Type.String()),
    scopes: Type.Optional(Strings('Requested scopes.')),
    responseType: Type.Optional(Type.String()),
    refreshToken: Type.Optional(Type.Union([Type.String(), Type.Boolean()])),
    pkceType: Type.Optional(Type.String({ description: '"plain" or "S256".' })),
    requestTokenContentType: Type.Optional(Type.String()),
    requestTokenAuthHeader: Type.Optional(Type.String()),
  },
  { description: 'One OAuth service (Shinkai oauth[]).' },
);

export const AuthSchema = Closed(
  {
    required: Type.Optional(Type.Boolean()),
    type: Type.Optional(StringEnum(AUTH_TYPES, 'Kind of credential.')),
    scopes: Type.Optional(Strings('Scopes the tool needs.')),
    envs: Type.Optional(Type.Record(Type.String(), EnvRequirementSchema, { description: 'Environment variables by name.' })),
    oauth: Type.Optional(Type.Array(OAuthSchema)),
    docs: Type.Optional(Type.String({ description: 'How to set the credentials up.' })),
  },
  { description: 'Credentials the tool needs.' },
);

export const CostSchema = Closed(
  {
    lane: Type.Optional(StringEnum(COST_LANES, 'Rough cost class.')),
    estimatedDollars: Type.Optional(Type.Number({ minimum: 0, description: 'Estimated dollars per call.' })),
  },
  { description: 'What a call costs.' },
);

export const LatencySchema = Closed(
  {
    p50Ms: Type.Optional(Type.Number({ minimum: 0 })),
    p95Ms: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { description: 'Declared latency, in milliseconds.' },
);

export const ExecutionSchema = Closed(
  {
    timeoutSec: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'Timeout per call, seconds.' })),
    allowParallel: Type.Optional(Type.Boolean({ description: 'Safe to run in parallel with itself.' })),
    idempotent: Type.Optional(Type.Boolean()),
    retryClass: Type.Optional(StringEnum(RETRY_CLASSES, 'When a failed call may be retried.')),
    idempotencyKey: Type.Optional(
      Type.Union([Type.Boolean(), Type.String()], {
        description: 'Whether calls carry an idempotency key (or the argument that holds it).',
      }),
    ),
    resources: Type.Optional(JsonObject('Resource expectations (Pylot runtime hints).')),
  },
  { description: 'How the runtime must call the tool.' },
);

export const SurfaceSchema = Closed(
  {
    domains: Type.Optional(Type.Array(StringEnum(SURFACE_DOMAINS, 'Xena domain.'))),
    entities: Type.Optional(Strings('Entities the tool acts on, e.g. github.pull_request.')),
    operations: Type.Optional(Type.Array(StringEnum(SURFACE_OPERATIONS, 'Xena operation.'))),
    taskRoles: Type.Optional(Type.Array(StringEnum(TASK_ROLES, 'Xena task role.'))),
    authority: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    freshnessSlaSec: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { description: 'The Xena surface contract.' },
);

export const ProviderSchema = Closed(
  {
    name: Type.String({ minLength: 1 }),
    priority: Type.Optional(Type.Number({ description: 'Lower is tried first.' })),
    config: Type.Optional(JsonObject('Provider-specific settings.')),
  },
  { description: 'One way to run the tool.' },
);

export const ImplementationSchema = Closed(
  {
    module: Type.Optional(Type.String()),
    export: Type.Optional(Type.String({ description: 'Export or class name inside the module.' })),
    language: Type.Optional(Type.String({ description: 'Implementation language (Shinkai tool_type).' })),
    isolation: Type.Optional(
      StringEnum(['worker', 'inline'] as const, 'Where a JavaScript module runs: a worker thread (the default; a timeout ends even synchronous code) or, for trusted fast tools, the server\'s own thread.'),
    ),
  },
  { description: 'Where the code lives.' },
);

export const WorkflowRouteSchema = Closed(
  {
    workflowType: Type.Optional(Type.String()),
    workflowName: Type.Optional(Type.String()),
    signalName: Type.Optional(Type.String()),
    dispatchMode: Type.Optional(StringEnum(['signalWithStart', 'signalOnly'] as const, 'How the event is dispatched.')),
    bootstrap: Type.Optional(Type.String()),
  },
  { description: 'A Xena webhook workflow route.' },
);

export const SqlTableSchema = Closed({ name: Type.String(), definition: Type.String() });
export const SqlQuerySchema = Closed({ name: Type.String(), query: Type.String() });

export const ToolSchema = Closed(
  {
    name: Type.String({ pattern: TOOL_NAME_PATTERN, description: 'Lowercase id; dots namespace it.' }),
    id: Type.Optional(Type.String({ description: 'The source system identifier, when it differs from name.' })),
    title: Type.Optional(Type.String()),
    version: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    enabled: Type.Optional(Type.Boolean({ default: true })),
    tags: Type.Optional(Strings('Free tags.')),
    scope: Type.Optional(
      Closed({ personas: Type.Optional(Strings('Personas that get the tool; absent = shared.')) }),
    ),
    inputSchema: Type.Optional(JsonSchemaSchema),
    inputSchemaRef: Type.Optional(Type.String({ description: 'Where inputSchema was loaded from, relative to the manifest.' })),
    outputSchema: Type.Optional(JsonSchemaSchema),
    configSchema: Type.Optional(JsonSchemaSchema),
    effects: Type.Optional(EffectsSchema),
    hints: Type.Optional(HintsSchema),
    approval: Type.Optional(ApprovalSchema),
    auth: Type.Optional(AuthSchema),
    cost: Type.Optional(CostSchema),
    latency: Type.Optional(LatencySchema),
    execution: Type.Optional(ExecutionSchema),
    surface: Type.Optional(SurfaceSchema),
    capabilities: Type.Optional(
      Type.Array(Type.String({ pattern: CAPABILITY_PATTERN }), { description: 'Dot-separated verb/object names.' }),
    ),
    permissions: Type.Optional(Strings('Permission names (Pylot).')),
    observability: Type.Optional(
      Closed({ traceAttrs: Type.Optional(Strings('Argument names copied into traces.')) }),
    ),
    alternatives: Type.Optional(Strings('Safer tools to consider first.')),
    providers: Type.Optional(Type.Array(ProviderSchema)),
    implementation: Type.Optional(ImplementationSchema),
    author: Type.Optional(Type.String()),
    homepage: Type.Optional(Type.String()),
    license: Type.Optional(Type.String()),
    notes: Type.Optional(Type.String({ description: 'Guidance for human operators.' })),
    auditStatus: Type.Optional(StringEnum(AUDIT_STATUSES, 'Review state (Pylot audit_status).')),
    workflowRoutes: Type.Optional(Type.Array(WorkflowRouteSchema)),
    storage: Type.Optional(
      Closed({
        sqlTables: Type.Optional(Type.Array(SqlTableSchema)),
        sqlQueries: Type.Optional(Type.Array(SqlQuerySchema)),
      }),
    ),
    uses: Type.Optional(Type.Array(Type.Unknown(), { description: 'Helper tools this tool calls (Shinkai tools).' })),
    metadata: Type.Optional(JsonObject('Free-form metadata.')),
    derived: Type.Optional(Derived),
    extensions: Type.Optional(Extensions),
  },
  { description: 'One tool and what calling it means.' },
);

const Named = {
  name: Type.String({ pattern: TOOL_NAME_PATTERN }),
  id: Type.Optional(Type.String()),
  title: Type.Optional(Type.String()),
  version: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  enabled: Type.Optional(Type.Boolean()),
  tags: Type.Optional(Strings('Free tags.')),
  metadata: Type.Optional(JsonObject('Free-form metadata.')),
  derived: Type.Optional(Derived),
  extensions: Type.Optional(Extensions),
};

export const SkillSchema = Closed(
  {
    ...Named,
    tools: Type.Optional(Strings('Tools the skill uses.')),
    capabilities: Type.Optional(Strings('Capabilities the skill requires.')),
  },
  { description: 'A skill: a named set of required capabilities and tools.' },
);

export const AgentConstraintsSchema = Closed(
  {
    maxRiskLevel: Type.Optional(StringEnum(RISK_LEVELS, 'Tools riskier than this (effects.risk) are not offered to the agent, nor callable by it.')),
    requireDeterministicTools: Type.Optional(
      Type.Boolean({ description: 'Only tools that declare effects.deterministic: true are offered and callable; a tool silent on it is not deterministic.' }),
    ),
  },
  { description: 'Limits on the tools an agent may use (Xena constraints), enforced on its view and its calls.' },
);

export const AgentSchema = Closed(
  {
    ...Named,
    persona: Type.Optional(Type.String()),
    skills: Type.Optional(Strings('Skills the agent has.')),
    tools: Type.Optional(Strings('Tools the agent gets directly.')),
    capabilities: Type.Optional(Strings('Capabilities the agent needs.')),
    constraints: Type.Optional(AgentConstraintsSchema),
  },
  { description: 'An agent or persona and what it gets.' },
);

export const JobSchema = Closed(
  {
    ...Named,
    summary: Type.Optional(Type.String()),
    personas: Type.Optional(Strings('Personas allowed to schedule the job.')),
    skills: Type.Optional(Strings('Required skills.')),
    tools: Type.Optional(Strings('Required tools.')),
    capabilities: Type.Optional(Strings('Required capabilities.')),
  },
  { description: 'A job: who may schedule it and what it needs.' },
);

export const BundleInfoSchema = Closed(
  {
    name: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    version: Type.Optional(Type.String()),
    schemaVersion: Type.Optional(Type.String({ description: 'The source format version (Pylot schema_version).' })),
    maintainers: Type.Optional(Strings('Who maintains the bundle.')),
    tags: Type.Optional(Strings('Free tags.')),
    metadata: Type.Optional(JsonObject('Free-form metadata.')),
    extensions: Type.Optional(Extensions),
  },
  { description: 'About the bundle as a whole.' },
);

export const CatalogSchema = Closed(
  {
    $schema: Type.Optional(Type.String()),
    toolcap: Type.Literal(1, { description: 'Canonical format version.' }),
    $defs: Type.Optional(
      Type.Record(Type.String(), JsonSchemaSchema, {
        description:
          'Schema definitions shared by several tools, written once. A "#/$defs/<name>" reference in a tool\'s schema resolves to that schema\'s own $defs/<name> when it has one, else to this table (docs/model.md).',
      }),
    ),
    bundle: Type.Optional(BundleInfoSchema),
    tools: Type.Optional(Type.Array(ToolSchema)),
    skills: Type.Optional(Type.Array(SkillSchema)),
    agents: Type.Optional(Type.Array(AgentSchema)),
    jobs: Type.Optional(Type.Array(JobSchema)),
  },
  {
    $id: 'https://toolcap.dev/schema/toolcap.schema.json',
    title: 'toolcap capability manifest',
    description: 'Tools, skills, agents and jobs with what calling each tool means.',
  },
);

export type Tool = Static<typeof ToolSchema>;
export type Skill = Static<typeof SkillSchema>;
export type Agent = Static<typeof AgentSchema>;
export type AgentConstraints = Static<typeof AgentConstraintsSchema>;
export type Job = Static<typeof JobSchema>;
export type BundleInfo = Static<typeof BundleInfoSchema>;
export type CatalogDocument = Static<typeof CatalogSchema>;
export type Effects = Static<typeof EffectsSchema>;
export type Hints = Static<typeof HintsSchema>;
export type Auth = Static<typeof AuthSchema>;
export type Execution = Static<typeof ExecutionSchema>;
export type Provider = Static<typeof ProviderSchema>;
export type Surface = Static<typeof SurfaceSchema>;
export type JsonSchema = Record<string, unknown> | boolean;

/** The JSON Schema 2020-12 document for a canonical manifest. */
export function canonicalJsonSchema(): Record<string, unknown> {
  // The JSON round trip drops TypeBox's symbol keys (Kind, Optional).
  const plain = JSON.parse(JSON.stringify(CatalogSchema as TSchema)) as Record<string, unknown>;
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...plain };
}
