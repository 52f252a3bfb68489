/**
 * Semantic rules over canonical entries: names, contradictory claims, schema
 * validity and references. They lint what was declared; values toolcap
 * derived are consistent by construction and are not linted.
 * @module
 */
import { isDerived } from '../model/derive.js';
import { diagnostic, type Diagnostic, type DiagnosticCode, type Location, type Severity } from '../model/diagnostics.js';
import type { Tool } from '../model/schema.js';
import { CAPABILITY_PATTERN, GATEWAY_TOOLS, TOOL_NAME_PATTERN, type SideEffect } from '../model/vocabulary.js';
import { lintSqlStorage } from './sql-storage.js';
import { schemaPatterns } from './schema-patterns.js';
import type { SchemaShape } from './schema-shape.js';

/**
 * Where a canonical field of the entry being linted stands in its source;
 * `below` is a JSON pointer inside the field (`/0/config/module`), used
 * when the source has that place and ignored when it does not.
 */
export type Locate = (path: string, below?: string) => Location;

const TOOL_NAME = new RegExp(TOOL_NAME_PATTERN);
const GATEWAY_NAMES: ReadonlySet<string> = new Set(Object.values(GATEWAY_TOOLS));
const CAPABILITY = new RegExp(CAPABILITY_PATTERN);
const SCHEMA_FIELDS = ['inputSchema', 'outputSchema', 'configSchema'] as const;
const WRITE_EFFECTS: ReadonlySet<SideEffect> = new Set(['write', 'system']);
const MUTATING_EFFECTS: ReadonlySet<SideEffect> = new Set(['write', 'database', 'filesystem', 'system']);

/** The value at a canonical path if it was declared, else undefined. */
function declaredValue<T>(tool: Tool, path: string, value: T | undefined): T | undefined {
  return value !== undefined && !isDerived(tool, path) ? value : undefined;
}

/**
 * One finding at a canonical field: the located fields, then the hint (and a
 * severity other than the code's), in the key order the findings have always had.
 */
function report(out: Diagnostic[], locate: Locate, code: DiagnosticCode, path: string, message: string, hint: string, severity?: Severity): void {
  const d = diagnostic(code, message, locate(path));
  d.hint = hint;
  if (severity) d.severity = severity;
  out.push(d);
}

/**
 * Lint one tool.
 * @param checkSchema the shape walk's verdict on a JSON Schema: its problem, or whether a pattern in it backtracks
 */
export function lintTool(tool: Tool, locate: Locate, checkSchema: (schema: Tool['inputSchema'] & object) => SchemaShape): Diagnostic[] {
  const out: Diagnostic[] = [];
  // (no closures per tool: `report` takes the list and the locator)
  // derived names too: a dialect that lower-cases "My Tool" still yields no valid name
  if (!TOOL_NAME.test(tool.name)) {
    report(out, locate, 'INVALID_TOOL_NAME', 'name', `Tool name "${tool.name}" must be lowercase letters, digits, "_", "." or "-".`, `Try "${suggestName(tool.name)}".`);
  } else if (GATEWAY_NAMES.has(tool.name)) {
    report(out, locate, 'INVALID_TOOL_NAME', 'name', `Tool name "${tool.name}" is one of the MCP gateway's own tools; a catalog tool under it would be listed beside the gateway's and never reached.`, `Try "${tool.name.replace('_', '.')}".`);
  }
  const capabilities = tool.capabilities;
  if (capabilities !== undefined) {
    for (const cap of capabilities) {
      if (!CAPABILITY.test(cap))
        report(out, locate, 'INVALID_CAPABILITY_NAME', 'capabilities', `Capability "${cap}" is not lowercase segments joined by dots (e.g. "tasks.probe").`, 'Use lowercase letters, digits, "_" and "-", with dots between segments.');
      else if (!cap.includes('.')) {
        report(out, locate, 'INVALID_CAPABILITY_NAME', 'capabilities', `Capability "${cap}" has one segment; the convention is dot-separated verb/object (e.g. "web.search").`, 'Name the object and the verb, e.g. "web.search"; reuse existing capabilities.', 'warning');
      }
    }
  }

  const mode = declaredValue(tool, 'effects.mode', tool.effects?.mode);
  const sideEffects = declaredValue(tool, 'effects.sideEffects', tool.effects?.sideEffects);
  if (mode === 'read' && sideEffects !== undefined && WRITE_EFFECTS.has(sideEffects)) {
    report(out, locate, 'CONTRADICTORY_CLAIM', 'effects.sideEffects', `Mode is "read" but side effects are "${sideEffects}".`, 'A read tool changes nothing: fix the mode or the side effects.');
  }
  const retry = declaredValue(tool, 'execution.retryClass', tool.execution?.retryClass);
  if (retry === 'safe' && tool.execution?.idempotent !== true) {
    report(out, locate, 'RETRY_NOT_IDEMPOTENT', 'execution.retryClass', 'Retry class "safe" on a tool that is not idempotent.', 'Declare the tool idempotent, or use retry class "guarded" or "never".');
  }
  const approved = declaredValue(tool, 'approval.required', tool.approval?.required) === true || tool.approval?.consent === true;
  if (sideEffects === 'system' && !approved) {
    report(out, locate, 'SYSTEM_WITHOUT_APPROVAL', 'effects.sideEffects', 'System-level side effects without a declared approval or consent.', 'Add approval: { required: true } (ATLAS: requires_consent: true).');
  }
  const writingEffect = sideEffects !== undefined && MUTATING_EFFECTS.has(sideEffects);
  const writes = mode === 'write' || mode === 'mixed' || writingEffect;
  const irreversible = declaredValue(tool, 'effects.reversible', tool.effects?.reversible) === 'none';
  if (writes && !tool.effects?.rollbackHint && !irreversible) {
    report(out, locate, 'WRITE_WITHOUT_ROLLBACK', writingEffect ? 'effects.sideEffects' : 'effects.mode', 'A tool that writes has no rollback hint.', 'Add effects.rollbackHint, or declare reversible: none.');
  }
  for (const field of SCHEMA_FIELDS) {
    const schema = declaredValue(tool, field, tool[field]);
    if (schema === undefined) continue;
    if (typeof schema !== 'object' || schema === null) continue;
    const shape = checkSchema(schema);
    if (shape.problem !== undefined) {
      const d = diagnostic('INVALID_JSON_SCHEMA', `${field} is not a valid JSON Schema: ${shape.problem}.`, locate(field, shape.pointer));
      d.hint = 'Fix the schema; it is checked against JSON Schema 2020-12.';
      out.push(d);
    } else if (shape.backtracks) {
      lintPatterns(out, locate, field, schema);
    }
  }
  if (tool.storage !== undefined) out.push(...lintSqlStorage(tool, locate));
  return out;
}

/** INVALID_TOOL_NAME for a skill, agent or job whose name breaks the pattern. */
export function lintEntryName(kind: string, name: string, locate: Locate): Diagnostic[] {
  if (TOOL_NAME.test(name)) return [];
  return [diagnostic('INVALID_TOOL_NAME', `${kind} name "${name}" must be lowercase letters, digits, "_", "." or "-".`, { ...locate('name'), hint: `Try "${suggestName(name)}".` })];
}

/** A valid tool name close to `name`. */
export function suggestName(name: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '_')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  return s || 'tool';
}

/** A reference from one entry to others, to check that the targets exist. */
export interface Reference {
  from: string;
  kind: 'tool' | 'skill';
  names: readonly string[] | undefined;
  locate: () => Location;
  field: string;
}

/** Report references to tools or skills the catalog does not have. */
export function lintReferences(references: readonly Reference[], known: { tools: ReadonlySet<string>; skills: ReadonlySet<string> }): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const ref of references) {
    const pool = ref.kind === 'tool' ? known.tools : known.skills;
    for (const name of ref.names ?? []) {
      // Xena pins versions as "id@1.2.0"; the entry is the same.
      if (pool.has(name) || pool.has(name.replace(/@[^@]*$/, ''))) continue;
      out.push(
        diagnostic('UNKNOWN_REFERENCE', `${ref.from} names ${ref.kind} "${name}" in ${ref.field}, which no layer defines.`, {
          ...ref.locate(),
          hint: `Add the ${ref.kind}, or fix the name.`,
        }),
      );
    }
  }
  return out;
}

/** The most pattern findings reported per schema; the rest are counted in the last one's message. */
const MAX_PATTERN_FINDINGS = 20;

/**
 * Each regular expression of a schema that runs on V8's backtracking engine
 * is PATTERN_BACKTRACKS, located at its keyword. (One that is not ECMAScript
 * is the shape walk's INVALID_JSON_SCHEMA.)
 */
function lintPatterns(out: Diagnostic[], locate: Locate, field: string, schema: unknown): void {
  const found = schemaPatterns(schema);
  const shown = Math.min(found.length, MAX_PATTERN_FINDINGS);
  for (let i = 0; i < shown; i++) {
    const f = found[i]!;
    const more = i === shown - 1 && found.length > shown ? ` (${found.length - shown} more patterns in ${field} are not listed)` : '';
    // both may be long (a patternProperties key is in the pointer too): the location keeps the whole pointer
    const shownPattern = JSON.stringify(f.pattern.length > 80 ? `${f.pattern.slice(0, 80)}…` : f.pattern);
    const where = `${field}${f.pointer.length > 200 ? `${f.pointer.slice(0, 200)}…` : f.pointer}`;
    const d = diagnostic(
      'PATTERN_BACKTRACKS',
      `The pattern ${shownPattern} at ${where} runs on V8's backtracking engine: it uses what the linear engine cannot mean the same by (lookaround, a backreference, a Unicode property name beyond the general categories, \\S inside a class, nested repeat counts over 1,000, or repeats that would compile to over 20,000 instructions), so the time a caller's string takes is not bounded by its length (nested repeats make it exponential).${more}`,
      locate(field, f.pointer),
    );
    d.hint = 'Rewrite the pattern without those constructs: a lookahead can often be a second pattern in its own schema under allOf. maxLength does not help: every keyword is checked.';
    out.push(d);
  }
}
