/**
 * BFCL v4 (corpus/bfcl-v4): every function doc of every category, imported
 * through the openai dialect line by line (the files are JSON Lines, not
 * manifests). Counts come from SOURCE.md; repair counts were measured and
 * pin the lenient mode's behaviour.
 */
import { describe, expect, it } from 'vitest';
import { openaiDialect } from '../../src/dialects/openai.js';
import { detectDialect } from '../../src/dialects/lookup.js';
import type { Tool } from '../../src/model/schema.js';
import { countCodes, CORPUS, importTools, readJsonl, type Imported } from './openai-adapters.js';

const DIR = `${CORPUS}/bfcl-v4`;

interface Line {
  function: unknown[];
}

/** Import one line's functions; the label names the file and line. */
function importLine(file: string, line: Line, index: number): Imported {
  return importTools(`${file}#L${index + 1}`, line.function);
}

/** Export tools and the document extension back to the OpenAI value. */
function exportBack({ imported }: Imported): unknown {
  const files = openaiDialect.export({ ...(imported.bundle ? { bundle: imported.bundle } : {}), tools: imported.tools.map((t) => t.value) });
  return files[0]?.value ?? [];
}

/** Original `type` spellings repaired on import, from the tools' extensions. */
function repairedSpellings(tools: readonly Tool[]): unknown[] {
  return tools.flatMap((t) => Object.values((t.extensions?.['openai']?.['repairs'] as Record<string, unknown> | undefined) ?? {}));
}

/**
 * [file, entries (SOURCE.md), fewest and most functions per entry
 * (SOURCE.md), functions imported, type repairs, names that needed a
 * lowercase canonical form].
 */
const SINGLE_TURN: Array<[string, number, number, number, number, number, number]> = [
  ['BFCL_v4_simple_python.jsonl', 400, 1, 1, 400, 487, 13],
  ['BFCL_v4_simple_java.jsonl', 100, 1, 1, 100, 321, 100],
  ['BFCL_v4_simple_javascript.jsonl', 50, 1, 1, 50, 192, 49],
  ['BFCL_v4_multiple.jsonl', 200, 2, 4, 557, 765, 20],
  ['BFCL_v4_parallel.jsonl', 200, 1, 1, 200, 246, 8],
  ['BFCL_v4_parallel_multiple.jsonl', 200, 2, 4, 520, 724, 24],
  ['BFCL_v4_live_simple.jsonl', 258, 1, 1, 258, 325, 62],
  ['BFCL_v4_live_multiple.jsonl', 1053, 2, 37, 4178, 4592, 2895],
  ['BFCL_v4_live_parallel.jsonl', 16, 1, 2, 18, 20, 0],
  ['BFCL_v4_live_parallel_multiple.jsonl', 24, 2, 9, 95, 108, 44],
  ['BFCL_v4_irrelevance.jsonl', 240, 1, 1, 240, 388, 10],
  ['BFCL_v4_live_irrelevance.jsonl', 884, 0, 37, 2066, 3355, 806],
  ['BFCL_v4_live_relevance.jsonl', 16, 1, 5, 44, 50, 28],
];

describe('BFCL v4 single-turn categories', () => {
  it('has the 3,641 single-turn entries SOURCE.md lists', () => {
    expect(SINGLE_TURN.reduce((n, row) => n + row[1], 0)).toBe(3641);
  });

  it.each(SINGLE_TURN)('%s: %i entries, %i-%i functions each, %i tools, %i repairs, %i derived names', (file, entries, fewest, most, tools, repairs, derivedNames) => {
    const lines = readJsonl(`${DIR}/${file}`) as Line[];
    expect(lines).toHaveLength(entries);
    const sizes = lines.map((l) => l.function.length);
    expect([Math.min(...sizes), Math.max(...sizes)]).toStrictEqual([fewest, most]);

    const results = lines.map((line, i) => importLine(file, line, i));
    const all = results.flatMap((r) => r.imported.tools.map((t) => t.value));
    expect(all).toHaveLength(tools);
    // Every diagnostic is a repair warning: no errors, no unknown fields.
    expect(countCodes(results.flatMap((r) => r.diagnostics))).toStrictEqual(repairs > 0 ? { 'SCHEMA_REPAIRED:warning': repairs } : {});
    expect(repairedSpellings(all)).toHaveLength(repairs);
    expect(all.filter((t) => t.derived?.includes('name'))).toHaveLength(derivedNames);
    // Nothing about effects is invented: the catalog is silent on them.
    expect(all.filter((t) => t.effects || t.approval || t.execution)).toStrictEqual([]);

    lines.forEach((line, i) => {
      expect(exportBack(results[i]!), `${file} line ${i + 1}`).toStrictEqual(line.function);
      if (line.function.length > 0) expect(detectDialect(line.function, { path: `${file}#L${i + 1}` })?.dialect.id).toBe('openai');
    });
  });
});

/** [file, function docs, type repairs, derived names, docs with a `response` schema]; JSON Lines of bare functions. */
const MULTI_TURN_DOCS: Array<[string, number, number, number, number]> = [
  ['gorilla_file_system.jsonl', 18, 36, 0, 18],
  ['math_api.jsonl', 17, 75, 0, 17],
  ['memory_kv.jsonl', 15, 32, 0, 15],
  ['memory_rec_sum.jsonl', 5, 10, 0, 5],
  ['memory_vector.jsonl', 12, 30, 0, 12],
  ['message_api.jsonl', 10, 23, 0, 10],
  ['posting_api.jsonl', 14, 31, 0, 14],
  ['ticket_api.jsonl', 9, 19, 0, 9],
  ['trading_bot.jsonl', 20, 58, 0, 20],
  ['travel_booking.jsonl', 18, 51, 0, 18],
  ['vehicle_control.jsonl', 22, 84, 10, 22],
  ['web_search.jsonl', 2, 3, 0, 1],
];

/** BFCL's class -> doc file map (SOURCE.md). */
const CLASS_FILES: Record<string, string> = {
  GorillaFileSystem: 'gorilla_file_system',
  MathAPI: 'math_api',
  MessageAPI: 'message_api',
  TwitterAPI: 'posting_api',
  TicketAPI: 'ticket_api',
  TradingBot: 'trading_bot',
  TravelAPI: 'travel_booking',
  VehicleControlAPI: 'vehicle_control',
  WebSearchAPI: 'web_search',
};

describe('BFCL v4 multi-turn class APIs', () => {
  it.each(MULTI_TURN_DOCS)('%s: %i tools, %i repairs, %i derived names, %i response -> outputSchema', (file, tools, repairs, derivedNames, responses) => {
    const docs = readJsonl(`${DIR}/multi_turn_func_doc/${file}`);
    const result = importTools(file, docs);
    const all = result.imported.tools.map((t) => t.value);
    expect(all).toHaveLength(tools);
    expect(countCodes(result.diagnostics)).toStrictEqual({ 'SCHEMA_REPAIRED:warning': repairs });
    expect(all.filter((t) => t.derived?.includes('name'))).toHaveLength(derivedNames);
    expect(all.filter((t) => t.inputSchema !== undefined)).toHaveLength(tools);
    expect(all.filter((t) => t.outputSchema !== undefined)).toHaveLength(responses);
    expect(exportBack(result)).toStrictEqual(docs);
  });

  it('has 12 doc files with 162 function docs', () => {
    expect(MULTI_TURN_DOCS).toHaveLength(12);
    expect(MULTI_TURN_DOCS.reduce((n, row) => n + row[1], 0)).toBe(162);
  });

  it('resolves every involved class of the 200 multi-turn entries to a doc file', () => {
    const entries = readJsonl(`${DIR}/BFCL_v4_multi_turn_base.jsonl`) as Array<{ involved_classes: string[] }>;
    expect(entries).toHaveLength(200);
    const files = new Set(MULTI_TURN_DOCS.map(([f]) => f.replace(/\.jsonl$/, '')));
    const classes = new Set(entries.flatMap((e) => e.involved_classes));
    expect([...classes].filter((c) => !files.has(CLASS_FILES[c] ?? ''))).toStrictEqual([]);
  });
});

describe('BFCL v4 type spellings', () => {
  it('repairs every foreign spelling but one unfixable empty type', () => {
    const counts: Record<string, number> = {};
    const unrepaired: string[] = [];
    for (const [file] of SINGLE_TURN) {
      (readJsonl(`${DIR}/${file}`) as Line[]).forEach((line, i) => {
        const { imported } = importLine(file, line, i);
        for (const spelling of repairedSpellings(imported.tools.map((t) => t.value))) counts[String(spelling)] = (counts[String(spelling)] ?? 0) + 1;
        if (JSON.stringify(imported.tools.map((t) => t.value.inputSchema)).includes('"type":""')) unrepaired.push(`${file}#L${i + 1}`);
      });
    }
    for (const [file] of MULTI_TURN_DOCS) {
      const { imported } = importTools(file, readJsonl(`${DIR}/multi_turn_func_doc/${file}`));
      for (const spelling of repairedSpellings(imported.tools.map((t) => t.value))) counts[String(spelling)] = (counts[String(spelling)] ?? 0) + 1;
    }
    expect(counts).toStrictEqual({
      dict: 9807,
      float: 1799,
      any: 199,
      String: 115,
      tuple: 66,
      Array: 13,
      HashMap: 7,
      long: 7,
      ArrayList: 6,
      Boolean: 4,
      double: 1,
      char: 1,
    });
    // `"type": ""` has no meaning to repair; the shared JSON Schema check reports it.
    expect(unrepaired).toStrictEqual(['BFCL_v4_simple_javascript.jsonl#L24']);
  });
});
