/**
 * The config file as written, for editors and other tools: one JSON Schema
 * assembled from the schema of each section (each kept beside its reader in
 * `sections/`). It is stricter than `loadConfig` about unknown fields (which
 * the loader only warns about) and cannot check that paths exist.
 * @module
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { ApprovalsSchema } from './sections/approvals.js';
import { AuthSchema } from './sections/auth.js';
import { EgressSchema } from './sections/egress.js';
import { LimitsSchema } from './sections/limits.js';
import { McpSchema } from './sections/mcp.js';
import { PersonasSchema } from './sections/personas.js';
import { RankingSchema } from './sections/ranking.js';
import { RuntimeSchema } from './sections/runtime.js';
import { ServerSchema } from './sections/server.js';
import { SourcesSchema } from './sections/sources.js';
import { StoreSchema } from './sections/store.js';
import { ToolsSchema } from './sections/tools.js';
import { WebhooksSchema } from './sections/webhooks.js';
import { TelemetrySchema } from './sections/telemetry.js';

/** The schema of `toolcap.config.yaml`; its property order is the order the sections are listed in messages. */
export const ConfigFileSchema = Type.Object(
  {
    sources: SourcesSchema,
    personas: Type.Optional(PersonasSchema),
    store: Type.Optional(StoreSchema),
    server: Type.Optional(ServerSchema),
    ranking: Type.Optional(RankingSchema),
    approvals: Type.Optional(ApprovalsSchema),
    auth: Type.Optional(AuthSchema),
    mcp: Type.Optional(McpSchema),
    egress: Type.Optional(EgressSchema),
    runtime: Type.Optional(RuntimeSchema),
    limits: Type.Optional(LimitsSchema),
    tools: Type.Optional(ToolsSchema),
    webhooks: Type.Optional(WebhooksSchema),
    telemetry: Type.Optional(TelemetrySchema),
  },
  { additionalProperties: false, description: 'toolcap.config.yaml: see docs/config.md.' },
);

/** The top-level fields a config may have, in schema order. */
export const CONFIG_FIELDS: readonly string[] = Object.keys(ConfigFileSchema.properties);

/**
 * The JSON Schema (2020-12) of a config file.
 * @example writeFileSync('toolcap.config.schema.json', JSON.stringify(configJsonSchema(), null, 2))
 */
export function configJsonSchema(): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(ConfigFileSchema as TSchema)) as Record<string, unknown>;
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...plain };
}
