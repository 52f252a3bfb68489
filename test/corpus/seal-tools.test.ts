/**
 * Seal-Tools (corpus/seal-tools): 4,076 synthetic API specs, mapped to
 * OpenAI functions by `sealToolFunction` and imported through the openai
 * dialect. Their parameter tables use Python type names (`str`, `int`,
 * `float`, `bool`), so lenient mode repairs every one of them.
 */
import { describe, expect, it } from 'vitest';
import { openaiDialect } from '../../src/dialects/openai.js';
import { countCodes, CORPUS, importTools, readJsonl, sealToolFunction } from './openai-adapters.js';

const records = readJsonl(`${CORPUS}/seal-tools/tool.jsonl`) as Array<Record<string, unknown>>;
const functions = records.map(sealToolFunction);
const { imported, diagnostics } = importTools('seal-tools/tool.jsonl', functions);
const tools = imported.tools.map((t) => t.value);

/** How many parameter (or response) entries have each `type`. */
function typeCounts(key: 'parameters' | 'responses'): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records) for (const p of Object.values(r[key] as Record<string, { type: string }>)) out[p.type] = (out[p.type] ?? 0) + 1;
  return out;
}

describe('Seal-Tools tool.jsonl', () => {
  it('imports all 4,076 tools (SOURCE.md) without an error', () => {
    expect(records).toHaveLength(4076);
    expect(tools).toHaveLength(4076);
    expect(diagnostics.filter((d) => d.severity === 'error')).toStrictEqual([]);
  });

  it.each<['parameters' | 'responses', Record<string, number>]>([
    ['parameters', { str: 7550, int: 1076, float: 698, bool: 99 }],
    ['responses', { str: 3841, int: 590, float: 1163, bool: 549 }],
  ])('uses only Python type names in %s', (key, expected) => {
    expect(typeCounts(key)).toStrictEqual(expected);
  });

  it('reports one repair warning per Python type name (9,423 parameters + 6,143 responses)', () => {
    expect(countCodes(diagnostics)).toStrictEqual({ 'SCHEMA_REPAIRED:warning': 15566 });
    expect(diagnostics[0]).toMatchObject({ code: 'SCHEMA_REPAIRED', severity: 'warning', pointer: '/0/parameters/properties/evidence_type/type' });
  });

  it('keeps the 4,076 unique names unique after deriving lowercase names (4,063 camelCase)', () => {
    expect(new Set(tools.map((t) => t.name)).size).toBe(4076);
    expect(tools.filter((t) => t.derived?.includes('name'))).toHaveLength(4063);
    expect(tools[0]).toMatchObject({ name: 'analyze_evidence', id: 'analyzeEvidence', derived: ['name'] });
  });

  it('maps parameters to inputSchema and responses to outputSchema, declaring no effects', () => {
    expect(tools.every((t) => t.inputSchema !== undefined && t.outputSchema !== undefined)).toBe(true);
    expect(tools.filter((t) => t.effects || t.approval || t.execution)).toStrictEqual([]);
  });

  it('exports back exactly the adapted functions, Python type names included', () => {
    const back = openaiDialect.export({ ...(imported.bundle ? { bundle: imported.bundle } : {}), tools });
    expect(back[0]?.value).toStrictEqual(functions);
  });
});
