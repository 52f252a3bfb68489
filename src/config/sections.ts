/**
 * The config sections that belong to later stages: planner `ranking`,
 * `approvals` policy and `mcp` servers. Each has its JSON Schema (part of
 * the config file schema) and its reader (located diagnostics through the
 * config's import context). `config.ts` owns the file and the core sections.
 * @module
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { resolve } from 'node:path';
import { ObjectReader } from '../source/reader.js';
import { joinPointer } from '../model/diagnostics.js';
import { MODES, RISK_LEVELS, SIDE_EFFECTS } from '../model/vocabulary.js';
import { DEFAULT_MCP_HEALTH_CHECK_INTERVAL_SEC, MCP_DEFAULTS, type McpConfig, type McpDefaults, type McpServerConfig } from '../mcp/config.js';
import { DEFAULT_RANK_WEIGHTS, type RankWeights } from '../query/rank.js';
import type { ApprovalRule } from '../runtime/policy.js';
import type { ImportContext } from '../dialects/types.js';
import { at, type SourceFile } from '../source/source.js';

/** A persona name: letters, digits, `_`, `.`, `-`, starting with a letter or digit. */
export const PERSONA_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]*$';
export const PERSONA_NAME = new RegExp(PERSONA_PATTERN);
/** An MCP server name: it becomes a segment of tool names (`mcp.<server>.<tool>`). */
const MCP_SERVER_PATTERN = '^[a-z0-9][a-z0-9_-]*$';
const MCP_SERVER_NAME = new RegExp(MCP_SERVER_PATTERN);

/** The `ranking` section: weights not given keep their defaults. */
export interface RankingConfig {
  weights?: Partial<RankWeights>;
  taskRisk?: number;
}

/** The `approvals` section. */
export interface ApprovalsConfig {
  /** Seconds an approval request stays valid. @default 3600 */
  ttlSec?: number;
  rules?: ApprovalRule[];
}

/** A map of MCP server name to its settings: names restricted by `propertyNames`, as the reader checks them. */
const McpServers = <T extends TSchema>(server: T) =>
  Type.Unsafe<Record<string, Static<T>>>({ type: 'object', propertyNames: { pattern: MCP_SERVER_PATTERN }, additionalProperties: server });

/** `ranking`: penalty weights over DEFAULT_RANK_WEIGHTS, and the task risk. */
export const RankingSchema = Type.Object(
  {
    weights: Type.Optional(
      Type.Object(
        Object.fromEntries(Object.keys(DEFAULT_RANK_WEIGHTS).map((k) => [k, Type.Optional(Type.Number({ minimum: 0, maximum: 1000 }))])),
        { additionalProperties: false, description: 'Points per penalty, and the fit multiplier (docs/query.md).' },
      ),
    ),
    taskRisk: Type.Optional(Type.Number({ minimum: 0, maximum: 10, description: 'Multiplies the risk penalty.' })),
  },
  { additionalProperties: false },
);

/** `approvals`: how long a request stays valid, and policy rules. */
export const ApprovalsSchema = Type.Object(
  {
    ttlSec: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 * 24 * 3600, description: 'Seconds an approval request stays valid (default 3600).' })),
    rules: Type.Optional(
      Type.Array(
        Type.Object(
          {
            tools: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
            personas: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
            minSideEffects: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...SIDE_EFFECTS] })),
            minRisk: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...RISK_LEVELS] })),
            modes: Type.Optional(Type.Array(Type.Unsafe<string>({ type: 'string', enum: [...MODES] }))),
            reason: Type.Optional(Type.String()),
          },
          { additionalProperties: false },
        ),
        { description: 'Calls matching a rule (every condition given) need approval even when the manifest does not ask for it.' },
      ),
    ),
  },
  { additionalProperties: false },
);

/** `mcp`: servers to discover tools from and call through. */
export const McpSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: 'Discover and call MCP tools (default: true when servers are listed).' })),
    allowTools: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Keep only these tools (names or mcp.<server>.<tool>, * wildcards), on every server.' })),
    denyTools: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Drop these tools, on every server.' })),
    servers: Type.Optional(
      McpServers(
        Type.Object(
          {
            command: Type.Optional(Type.String({ minLength: 1 })),
            args: Type.Optional(Type.Array(Type.String())),
            cwd: Type.Optional(Type.String({ minLength: 1 })),
            env: Type.Optional(Type.Record(Type.String(), Type.String())),
            url: Type.Optional(Type.String({ pattern: '^https?://' })),
            headers: Type.Optional(Type.Record(Type.String(), Type.String())),
            persona: Type.Optional(Type.String({ pattern: PERSONA_PATTERN })),
            allowTools: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
            denyTools: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
            healthCheckIntervalSec: Type.Optional(Type.Integer({ minimum: 1, default: DEFAULT_MCP_HEALTH_CHECK_INTERVAL_SEC })),
            defaults: Type.Optional(
              Type.Object(
                {
                  sideEffects: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...SIDE_EFFECTS] })),
                  timeoutSec: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
                  allowParallel: Type.Optional(Type.Boolean()),
                  consent: Type.Optional(Type.Boolean()),
                  idempotencyKey: Type.Optional(Type.Boolean()),
                },
                { additionalProperties: false },
              ),
            ),
          },
          {
            additionalProperties: false,
            description: 'stdio (command, args, cwd, env) or Streamable HTTP (url, headers).',
            oneOf: [{ required: ['command'] }, { required: ['url'] }],
          },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

/** Read `ranking`. */
export function readRankingSection(top: ObjectReader): RankingConfig {
  const ranking: RankingConfig = {};
  const rankingReader = top.object('ranking');
  if (rankingReader) {
    const weightsReader = rankingReader.object('weights');
    if (weightsReader) {
      const weights: Partial<RankWeights> = {};
      for (const key of Object.keys(DEFAULT_RANK_WEIGHTS) as Array<keyof RankWeights>) {
        const n = weightsReader.number(key, { min: 0, max: 1000 });
        if (n !== undefined) weights[key] = n;
      }
      weightsReader.rest({ where: `ranking.weights (known: ${Object.keys(DEFAULT_RANK_WEIGHTS).join(', ')})` });
      ranking.weights = weights;
    }
    const taskRisk = rankingReader.number('taskRisk', { min: 0, max: 10 });
    if (taskRisk !== undefined) ranking.taskRisk = taskRisk;
    rankingReader.rest({ where: 'ranking' });
  }
  return ranking;
}

/** Read `approvals`. */
export function readApprovalsSection(top: ObjectReader, context: ImportContext): ApprovalsConfig {
  const report = context.report.bind(context);
  const approvals: ApprovalsConfig = {};
  const approvalsReader = top.object('approvals');
  if (approvalsReader) {
    const ttl = approvalsReader.number('ttlSec', { integer: true, min: 1, max: 30 * 24 * 3600 });
    if (ttl !== undefined) approvals.ttlSec = ttl;
    const rules: ApprovalRule[] = [];
    approvalsReader.array('rules')?.forEach((item, i) => {
      const rule = ObjectReader.of(context, item, joinPointer(approvalsReader.at('rules'), i), 'An approval rule');
      if (!rule) return;
      const r: ApprovalRule = {};
      const tools = rule.strings('tools');
      if (tools) r.tools = tools;
      const personas = rule.strings('personas');
      if (personas) r.personas = personas;
      const minSideEffects = rule.enumValue('minSideEffects', SIDE_EFFECTS);
      if (minSideEffects) r.minSideEffects = minSideEffects;
      const minRisk = rule.enumValue('minRisk', RISK_LEVELS);
      if (minRisk) r.minRisk = minRisk;
      const modes = rule.enumValues('modes', MODES);
      if (modes) r.modes = modes;
      const reason = rule.string('reason');
      if (reason !== undefined) r.reason = reason;
      rule.rest({ where: 'an approval rule (known: tools, personas, minSideEffects, minRisk, modes, reason)' });
      if (Object.keys(r).filter((k) => k !== 'reason').length === 0) {
        report('INVALID_VALUE', 'An approval rule with no condition would gate every call.', rule.pointer, { hint: 'Give at least one of tools, personas, minSideEffects, minRisk, modes.' });
      } else rules.push(r);
    });
    if (rules.length > 0) approvals.rules = rules;
    approvalsReader.rest({ where: 'approvals (known: ttlSec, rules)' });
  }
  return approvals;
}

/** Read `mcp`; relative `cwd`s resolve from `root` (the config's folder). */
export function readMcpSection(top: ObjectReader, context: ImportContext, file: SourceFile, root: string): McpConfig {
  const report = context.report.bind(context);
  const mcp: McpConfig = { enabled: false, allowTools: [], denyTools: [], servers: [] };
  const mcpReader = top.object('mcp');
  if (mcpReader) {
    const patterns = (reader: ObjectReader, key: string) => reader.strings(key)?.filter((p) => p !== '') ?? [];
    mcp.allowTools = patterns(mcpReader, 'allowTools');
    mcp.denyTools = patterns(mcpReader, 'denyTools');
    const enabled = mcpReader.boolean('enabled');
    const servers = mcpReader.object('servers');
    for (const name of servers ? Object.keys(servers.value) : []) {
      const at0 = servers!.at(name);
      if (!MCP_SERVER_NAME.test(name)) {
        report('INVALID_VALUE', `The MCP server name "${name}" must be lowercase letters, digits, "_" or "-" (it becomes part of tool names: mcp.<server>.<tool>).`, at0, { hint: 'Rename the server, e.g. everything or github.' });
        continue;
      }
      const sr = servers!.object(name);
      if (!sr) continue;
      const command = sr.string('command');
      const url = sr.string('url');
      if ((command === undefined) === (url === undefined)) {
        report(command === undefined ? 'MISSING_FIELD' : 'INVALID_VALUE', `MCP server "${name}" needs exactly one of "command" (stdio) or "url" (Streamable HTTP).`, at0, { hint: 'Write command: npx, args: [...] for a local server, or url: https://... for a remote one.' });
      }
      if (url !== undefined && !/^https?:\/\/\S+$/.test(url)) report('INVALID_VALUE', `The url of MCP server "${name}" must start with http:// or https://.`, sr.at('url'), {});
      const stringMap = (key: string): Record<string, string> => {
        const m = sr.object(key);
        const out: Record<string, string> = {};
        if (!m) return out;
        for (const k of Object.keys(m.value)) {
          const v = m.string(k);
          if (v !== undefined) out[k] = v;
        }
        return out;
      };
      const persona = sr.string('persona');
      if (persona !== undefined && !PERSONA_NAME.test(persona)) report('INVALID_VALUE', `The persona "${persona}" of MCP server "${name}" is not a persona name.`, sr.at('persona'), {});
      const cwd = sr.string('cwd');
      const interval = sr.number('healthCheckIntervalSec', { integer: true, min: 1 });
      const defaults: McpDefaults = { ...MCP_DEFAULTS };
      const dr = sr.object('defaults');
      if (dr) {
        const sideEffects = dr.enumValue('sideEffects', SIDE_EFFECTS);
        if (sideEffects) defaults.sideEffects = sideEffects;
        const timeoutSec = dr.number('timeoutSec', { min: 0.001 });
        if (timeoutSec !== undefined) defaults.timeoutSec = timeoutSec;
        for (const key of ['allowParallel', 'consent', 'idempotencyKey'] as const) {
          const b = dr.boolean(key);
          if (b !== undefined) defaults[key] = b;
        }
        dr.rest({ where: `the defaults of MCP server "${name}" (known: sideEffects, timeoutSec, allowParallel, consent, idempotencyKey)` });
      }
      const server: McpServerConfig = {
        name,
        transport: url !== undefined ? 'http' : 'stdio',
        args: sr.strings('args') ?? [],
        env: stringMap('env'),
        headers: stringMap('headers'),
        allowTools: patterns(sr, 'allowTools'),
        denyTools: patterns(sr, 'denyTools'),
        healthCheckIntervalSec: interval ?? DEFAULT_MCP_HEALTH_CHECK_INTERVAL_SEC,
        defaults,
        location: at(file, at0),
        ...(command !== undefined ? { command } : {}),
        ...(url !== undefined ? { url } : {}),
        // a stdio server runs in the config's folder unless told otherwise, so relative paths read as in the config
        ...(command !== undefined ? { cwd: resolve(root, cwd ?? '.') } : {}),
        ...(persona !== undefined && PERSONA_NAME.test(persona) ? { persona } : {}),
      };
      sr.rest({ where: `MCP server "${name}" (known: command, args, cwd, env, url, headers, persona, allowTools, denyTools, healthCheckIntervalSec, defaults)` });
      mcp.servers.push(server);
    }
    mcp.enabled = enabled ?? mcp.servers.length > 0;
    mcpReader.rest({ where: 'mcp (known: enabled, allowTools, denyTools, servers)' });
  }
  return mcp;
}
