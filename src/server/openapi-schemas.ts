/**
 * The named schemas of `/openapi.json` (`components.schemas`). The tool,
 * skill and agent are the canonical TypeBox schemas of
 * src/model/schema.ts, the same source as the published
 * `schema/toolcap.schema.json`, so a generated client types `tool.effects`
 * exactly as a manifest writes it. Objects whose members are open (a
 * summary, a call's arguments, a result) say so with
 * `additionalProperties: true` instead of a bare `{type: object}`, which
 * generators read as "no members at all".
 * @module
 */
import type { TSchema } from '@sinclair/typebox';
import { AgentSchema, SkillSchema, ToolSchema } from '../model/schema.js';
import { APPROVAL_STATUSES } from '../store/types.js';
import { ref, type Json } from './openapi-parts.js';
import { PROBLEM_CODES } from './problem.js';

/** A TypeBox schema as plain JSON (the symbol keys dropped). */
const plain = (schema: TSchema): Json => JSON.parse(JSON.stringify(schema)) as Json;

/** An object with members of any name and value. */
export const openObject = (description?: string): Json => ({ type: 'object', additionalProperties: true, ...(description ? { description } : {}) });

/** Which provider answered the latest successful call of a tool, and when. */
const LAST_SUCCESS = { type: 'object', properties: { provider: { type: 'string' }, at: { type: 'string', format: 'date-time' } } };
const nullableString = { type: ['string', 'null'] };

/** `components.schemas`. */
export function componentSchemas(): Json {
  return {
    Tool: { ...plain(ToolSchema), description: 'A canonical tool, as schema/toolcap.schema.json (tools[]) defines it.' },
    Skill: plain(SkillSchema),
    Agent: plain(AgentSchema),
    Problem: {
      type: 'object',
      description: 'RFC 9457 problem details, with a stable code.',
      required: ['type', 'title', 'status', 'code', 'detail'],
      properties: {
        type: { type: 'string' },
        title: { type: 'string' },
        status: { type: 'integer' },
        code: { type: 'string', enum: Object.keys(PROBLEM_CODES) },
        detail: { type: 'string' },
        problems: { type: 'array', items: { type: 'object', properties: { parameter: { type: 'string' }, pointer: { type: 'string' }, message: { type: 'string' } } } },
        allowed: { type: 'array', items: { type: 'string' }, description: 'FORBIDDEN_PERSONA, UNKNOWN_PERSONA: the personas the principal may use.' },
        missing: { type: 'array', items: { type: 'string' }, description: 'MISSING_CREDENTIALS: the environment variables that are not set (names, never values).' },
        approval: ref('Approval'),
      },
    },
    ToolView: {
      type: 'object',
      required: ['key', 'name', 'personas', 'capabilities', 'authScopes', 'health', 'tool'],
      properties: {
        key: { type: 'string' },
        name: { type: 'string' },
        personas: { type: 'array', items: { type: 'string' } },
        capabilities: { type: 'array', items: { type: 'string' } },
        authScopes: { type: 'array', items: { type: 'string' } },
        health: {
          type: 'object',
          properties: {
            status: { type: 'string', enum: ['unknown', 'ok', 'degraded', 'down', 'unavailable'], description: 'unavailable: every provider misses a required credential (missingCredentials).' },
            successRate: { type: 'number' },
            calls: { type: 'integer' },
            lastSuccessfulProvider: LAST_SUCCESS,
            reason: { type: 'string' },
            missingCredentials: { type: 'array', items: { type: 'string' }, description: 'Names of the variables that are not set (never values).' },
          },
        },
        tool: ref('Tool'),
      },
    },
    ToolDetail: {
      allOf: [
        ref('ToolView'),
        {
          type: 'object',
          properties: {
            provenance: { type: 'array', items: openObject() },
            providerHealth: { type: 'array', items: openObject(), description: 'With a runtime: per provider, calls, success rate, last outcome and circuit.' },
            lastSuccessfulProvider: { oneOf: [LAST_SUCCESS, { type: 'null' }], description: 'With a runtime: the provider of the latest successful call.' },
          },
        },
      ],
    },
    ToolsPage: {
      type: 'object',
      required: ['version', 'etag', 'total', 'tools'],
      properties: { version: { type: 'integer' }, etag: { type: 'string' }, total: { type: 'integer' }, nextCursor: { type: 'string' }, tools: { type: 'array', items: ref('ToolView') } },
    },
    SearchResult: {
      type: 'object',
      required: ['query', 'intent', 'confidence', 'candidates'],
      properties: {
        query: { type: 'string' },
        intent: { type: 'string', enum: ['read', 'write', 'unknown'] },
        confidence: { type: 'number', minimum: 0, maximum: 1, description: 'How sure the intent is (1 when the request gave it).' },
        intentEvidence: { type: 'array', items: { type: 'string' }, description: 'With explain: what the intent was read from.' },
        understanding: openObject('With explain: list or item, destruction asked for or ruled out, values kept out of the terms.'),
        candidates: {
          type: 'array',
          items: { type: 'object', required: ['name', 'key', 'score'], properties: { name: { type: 'string' }, key: { type: 'string' }, score: { type: 'number' }, fit: { type: 'number' } }, additionalProperties: true },
        },
      },
    },
    CallRequest: {
      type: 'object',
      additionalProperties: false,
      properties: {
        arguments: openObject('Checked against the tool\'s inputSchema.'),
        persona: { type: 'string' },
        agent: { type: 'string', description: "The catalog agent the call is made for: refused (403 AGENT_FORBIDDEN) unless the tool is in the agent's view." },
        caller: { type: 'string', description: 'Ignored when the request is authenticated.' },
        job: { type: 'string' },
        idempotencyKey: { type: 'string' },
        selection: {
          type: 'string',
          pattern: '^sel_[A-Za-z0-9_-]{22}$',
          description: 'The toolcap-selection header of the /search answer the tool was chosen from: the span and audit record what it was selected over (docs/observability.md).',
        },
      },
    },
    CallResult: {
      type: 'object',
      required: ['status', 'callId', 'tool', 'provider', 'attempts', 'result'],
      properties: {
        status: { type: 'string', const: 'ok' },
        callId: { type: 'string' },
        tool: { type: 'string' },
        provider: { type: 'string' },
        attempts: { type: 'integer' },
        durationMs: { type: 'number' },
        result: { description: 'What the tool returned.' },
        skipped: { type: 'array', items: { type: 'string' }, description: 'Providers passed over, with why.' },
      },
    },
    PendingCall: {
      type: 'object',
      required: ['status', 'callId', 'tool', 'approval'],
      properties: {
        status: { type: 'string', const: 'pending_approval' },
        callId: { type: 'string' },
        tool: { type: 'string' },
        approval: ref('Approval'),
        approve: { type: 'string', description: 'The request that approves it.' },
        deny: { type: 'string', description: 'The request that denies it.' },
      },
    },
    Approval: {
      type: 'object',
      required: ['id', 'tool', 'status', 'reason', 'createdAt', 'expiresAt'],
      properties: {
        id: { type: 'string' },
        tool: { type: 'string' },
        persona: nullableString,
        arguments: { description: 'The call\'s arguments, exactly as reviewed, except that each value the tool\'s inputSchema marks sensitive (sensitive, x-sensitive, format password, writeOnly) shows as "[SENSITIVE]" (every value as "[HIDDEN]" once the tool is no longer served); the approved call runs the real values.' },
        argumentsHash: { type: 'string', description: 'sha256: of the canonical JSON of the real arguments (sensitive values included): what the approval is bound to.' },
        manifestHash: { type: 'string' },
        codeHash: { type: 'string' },
        requestedBy: nullableString,
        reason: { type: 'string' },
        createdAt: { type: 'string', format: 'date-time' },
        expiresAt: { type: 'string', format: 'date-time' },
        status: { type: 'string', enum: [...APPROVAL_STATUSES] },
        decidedBy: nullableString,
        decidedAt: nullableString,
        note: nullableString,
        result: { description: 'The call\'s outcome once run, else null.' },
        requestedByPrincipal: { type: 'string' },
        decidedByPrincipal: { type: 'string' },
        decidedVia: { type: 'string' },
        outcome: openObject('What the approved call gave the agent, once it ran.'),
      },
    },
    Health: {
      type: 'object',
      required: ['status', 'version'],
      properties: { status: { type: 'string', enum: ['ok', 'degraded', 'starting'] }, version: { type: 'integer' }, etag: nullableString, lastError: {} },
    },
  };
}
