/**
 * MetaTool (corpus/metatool): ChatGPT-plugin tools given as `{name:
 * description}` maps, turned into parameterless OpenAI function tools by
 * `metaToolFunctions` and imported through the openai dialect. The
 * plugins' parameter schemas were never published, so `inputSchema` stays
 * absent rather than invented.
 */
import { describe, expect, it } from 'vitest';
import { openaiDialect } from '../../src/dialects/openai.js';
import type { Tool } from '../../src/model/schema.js';
import { countCodes, CORPUS, importTools, metaToolFunctions, readJson } from './openai-adapters.js';

const DIR = `${CORPUS}/metatool`;

function load(file: string): { functions: unknown[]; tools: Tool[]; codes: Record<string, number>; back: unknown } {
  const functions = metaToolFunctions(readJson(`${DIR}/${file}`));
  const { imported, diagnostics } = importTools(file, functions);
  const tools = imported.tools.map((t) => t.value);
  const back = openaiDialect.export({ ...(imported.bundle ? { bundle: imported.bundle } : {}), tools })[0]?.value;
  return { functions, tools, codes: countCodes(diagnostics), back };
}

describe('MetaTool tool descriptions', () => {
  it.each<[string, number, number]>([
    ['plugin_des.json', 199, 109],
    ['big_tool_des.json', 47, 46],
  ])('%s: %i tools (SOURCE.md), %i with a derived lowercase name, no diagnostics', (file, count, derivedNames) => {
    const { functions, tools, codes, back } = load(file);
    expect(tools).toHaveLength(count);
    expect(codes).toStrictEqual({});
    expect(tools.filter((t) => t.derived?.includes('name'))).toHaveLength(derivedNames);
    expect(new Set(tools.map((t) => t.name)).size).toBe(count);
    expect(tools.filter((t) => t.inputSchema !== undefined || t.effects !== undefined)).toStrictEqual([]);
    expect(back).toStrictEqual(functions);
  });

  it('lists all 47 big tools among the 199 plugins', () => {
    const plugins = new Set(load('plugin_des.json').tools.map((t) => t.id ?? t.name));
    expect(load('big_tool_des.json').tools.filter((t) => !plugins.has(t.id ?? t.name))).toStrictEqual([]);
  });

  it('resolves every gold tool of the 497 two-tool queries to an imported tool', () => {
    const golden = readJson(`${DIR}/multi_tool_query_golden.json`) as Array<{ tool: string[] }>;
    expect(golden).toHaveLength(497);
    const names = new Set(load('big_tool_des.json').tools.map((t) => t.id ?? t.name));
    expect(golden.flatMap((q) => q.tool).filter((name) => !names.has(name))).toStrictEqual([]);
  });
});
