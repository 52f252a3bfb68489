/**
 * The OpenAPI pieces the route table is written with: query and path
 * parameters, JSON answers, schema references. The filter parameters and
 * their enumerations come from the same tables the parser uses, so the
 * description cannot drift from what the server accepts.
 * @module
 */
import { FILTER_PARAMETERS, MAX_LIMIT } from '../query/params.js';
import { MODES, RISK_LEVELS, SIDE_EFFECTS, SURFACE_DOMAINS, SURFACE_OPERATIONS } from '../model/vocabulary.js';

/** A piece of an OpenAPI document. */
export type Json = Record<string, unknown>;

type FilterParameter = (typeof FILTER_PARAMETERS)[number];

const FILTER_DOCS: Record<FilterParameter, { description: string; schema: Json; repeat?: boolean }> = {
  persona: {
    description: 'Include this persona\'s tools (repeatable). Shared tools are always included, unless one value is "-shared"; a persona\'s own version of a tool shadows the shared one.',
    schema: { type: 'string' },
    repeat: true,
  },
  provider: { description: 'A provider the tool lists (providers[].name).', schema: { type: 'string', minLength: 1 } },
  version: { description: 'A semver range (">=1.2", "^2"). Tools without a valid semver version never match.', schema: { type: 'string' } },
  min_success_rate: {
    description: 'Minimum observed success rate, 0..1. Tools without observed health pass, with health.status "unknown".',
    schema: { type: 'number', minimum: 0, maximum: 1 },
  },
  side_effects: { description: 'At most this side-effect severity.', schema: { type: 'string', enum: [...SIDE_EFFECTS] } },
  mode: { description: 'Exactly this mode.', schema: { type: 'string', enum: [...MODES] } },
  max_risk: { description: 'At most this risk level.', schema: { type: 'string', enum: [...RISK_LEVELS] } },
  tag: { description: 'A tag the tool has.', schema: { type: 'string', minLength: 1 } },
  domain: { description: 'A surface domain the tool has.', schema: { type: 'string', enum: [...SURFACE_DOMAINS] } },
  operation: { description: 'A surface operation the tool has.', schema: { type: 'string', enum: [...SURFACE_OPERATIONS] } },
  capability: { description: 'A capability, exact ("tasks.probe") or a prefix ("tasks.*").', schema: { type: 'string' } },
  approval: { description: 'Whether each call needs human approval.', schema: { type: 'boolean' } },
  enabled: { description: 'Enabled (true, the default for `/tools`), disabled (false) or both (any).', schema: { type: 'string', enum: ['true', 'false', 'any'] } },
  limit: { description: 'Page size.', schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT } },
  cursor: { description: 'nextCursor of the previous page.', schema: { type: 'string' } },
  offset: { description: 'Skip this many matches (not with cursor).', schema: { type: 'integer', minimum: 0 } },
};

/** A query parameter. */
export const param = (name: string, description: string, schema: Json, extra: Json = {}): Json => ({ name, in: 'query', description, schema, ...extra });

/** A required string path parameter (`{name}`, `{id}`). */
export const pathParam = (name: string): Json => ({ name, in: 'path', required: true, schema: { type: 'string' } });

/** The `/tools` filters by name, documented from the parser's own table. */
export const filterParameters = (names: readonly FilterParameter[]): Json[] =>
  names.map((name) => {
    const doc = FILTER_DOCS[name];
    return doc.repeat ? param(name, doc.description, { type: 'array', items: doc.schema }, { style: 'form', explode: true }) : param(name, doc.description, doc.schema);
  });

/** `persona`, given once: what that persona sees. */
export const personaParam = param('persona', 'Only what this persona sees.', { type: 'string' });

/** A JSON answer with this schema. */
export const json = (schema: Json, description: string): Json => ({ description, content: { 'application/json': { schema } } });

/** A reference to a schema in `components`. */
export const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
