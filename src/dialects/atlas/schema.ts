/**
 * The JSON Schema of ATLAS's `functions.json` (shared
 * `modules/Tools/tool_maps/functions.json` and per-persona
 * `modules/Personas/<Persona>/Toolbox/functions.json`), written from the
 * ATLAS seed ("Tool Manifest Metadata"): an array of OpenAI-style function
 * entries with ATLAS's metadata (`version`, `side_effects`,
 * `default_timeout`, `auth`, `allow_parallel`, `requires_consent`,
 * `idempotency_key`, `providers`). It is shipped as
 * `schema/atlas-functions.schema.json` (`toolcap/schema/atlas.json`), so
 * `python -m jsonschema -i functions.json atlas-functions.schema.json`
 * checks a file as ATLAS does at startup. Fields ATLAS manifests carry
 * beyond the seed (`capabilities`, `cost_per_call`, ...) are typed where
 * the dialect reads them; other fields are allowed, as ATLAS allows them.
 * @module
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { AUTH_TYPES, RISK_LEVELS, SIDE_EFFECTS } from '../../model/vocabulary.js';

const Enum = (values: readonly string[], description: string) => Type.Unsafe<string>({ type: 'string', enum: [...values], description });

/** `auth.envs.<NAME>`: required or optional. */
const EnvRequirement = Type.Object(
  {
    required: Type.Optional(Type.Boolean()),
    optional: Type.Optional(Type.Boolean()),
    description: Type.Optional(Type.String()),
  },
  { description: 'One environment variable: { "required": true } or { "optional": true }.' },
);

const Auth = Type.Object(
  {
    required: Type.Optional(Type.Boolean({ description: 'Whether the tool needs credentials at all.' })),
    type: Type.Optional(Enum(AUTH_TYPES, 'The kind of credential.')),
    envs: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), EnvRequirement, { description: 'Environment variables by name.' })),
    env: Type.Optional(Type.String({ minLength: 1, description: 'One variable (older ATLAS manifests).' })),
    scopes: Type.Optional(Type.Array(Type.String(), { description: 'Declared authentication scopes.' })),
    docs: Type.Optional(Type.String({ description: 'How to set the credentials up.' })),
  },
  { description: 'Authentication requirements.' },
);

const Provider = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'google_cse, serpapi, openai, internal_http_client, mcp, ...' }),
    priority: Type.Optional(Type.Number({ description: 'Tried in ascending order.' })),
    config: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Provider settings (e.g. { "server", "tool" } for mcp).' })),
    health_check_interval: Type.Optional(Type.Number({ minimum: 0, description: 'Seconds between health checks (0: none).' })),
  },
  { description: 'One way to run the tool.' },
);

const IdempotencyKey = Type.Union(
  [
    Type.Boolean(),
    Type.Object({ required: Type.Optional(Type.Boolean()), scope: Type.Optional(Type.String()), guidance: Type.Optional(Type.String()) }, { additionalProperties: false }),
  ],
  { description: 'Whether calls take an idempotency key: a boolean, or { required, scope, guidance }.' },
);

/** One `functions.json` entry. */
export const AtlasToolSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'The function name.' }),
    description: Type.Optional(Type.String()),
    parameters: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'The arguments, as an OpenAI function-calling JSON Schema.' })),
    version: Type.Optional(Type.String({ description: 'Human readable semantic version.' })),
    side_effects: Type.Optional(Enum(SIDE_EFFECTS, 'The strongest external interaction the tool performs.')),
    default_timeout: Type.Optional(Type.Integer({ minimum: 1, description: 'Preferred execution timeout in seconds.' })),
    auth: Type.Optional(Auth),
    allow_parallel: Type.Optional(Type.Boolean({ description: 'Safe to invoke in parallel with itself.' })),
    requires_consent: Type.Optional(Type.Boolean({ description: 'A person must consent to each call.' })),
    idempotency_key: Type.Optional(IdempotencyKey),
    providers: Type.Optional(Type.Array(Provider, { description: 'Providers, tried by ascending priority.' })),
    enabled: Type.Optional(Type.Boolean()),
    tags: Type.Optional(Type.Array(Type.String())),
    notes: Type.Optional(Type.String()),
    capabilities: Type.Optional(Type.Array(Type.String(), { description: 'Normalized capability tags.' })),
    safety_level: Type.Optional(Enum(RISK_LEVELS, 'How risky a call is.')),
    cost_per_call: Type.Optional(Type.Number({ minimum: 0 })),
    cost_unit: Type.Optional(Type.String({ description: 'The unit of cost_per_call (USD when absent).' })),
  },
  { additionalProperties: true, description: 'One tool entry of functions.json.' },
);

/** A whole `functions.json`: an array of tool entries. */
export const AtlasFunctionsSchema = Type.Array(AtlasToolSchema, { description: 'ATLAS functions.json: the shared or a persona\'s tool manifest.' });

/**
 * The shipped JSON Schema (2020-12) of `functions.json`.
 * @example writeFileSync('schema/atlas-functions.schema.json', JSON.stringify(atlasFunctionsJsonSchema(), null, 2))
 */
export function atlasFunctionsJsonSchema(): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(AtlasFunctionsSchema as TSchema)) as Record<string, unknown>;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://toolcap.dev/schema/atlas-functions.schema.json',
    title: 'ATLAS functions.json',
    ...plain,
  };
}
