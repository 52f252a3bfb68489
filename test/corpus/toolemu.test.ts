/**
 * ToolEmu (corpus/toolemu): 38 toolkits with 330 tools, mapped to OpenAI
 * functions by `toolEmuFunctions` and imported through the openai dialect.
 * The per-toolkit risk lists have no OpenAI home and are not imported; they
 * check that silence is read conservatively for every risky toolkit.
 */
import { describe, expect, it } from 'vitest';
import { openaiDialect } from '../../src/dialects/openai.js';
import { complete } from '../../src/model/derive.js';
import { countCodes, CORPUS, importTools, readJson, toolEmuFunctions } from './openai-adapters.js';

interface Toolkit {
  toolkit: string;
  name_for_model: string;
  category?: string;
  tools: Array<{ name: string; exceptions?: unknown[] }>;
}

const toolkits = readJson(`${CORPUS}/toolemu/all_toolkits.json`) as Toolkit[];
const risks = readJson(`${CORPUS}/toolemu/toolkit_risks.json`) as Record<string, string[]>;
const functions = toolkits.flatMap(toolEmuFunctions);
const { imported, diagnostics } = importTools('toolemu/all_toolkits.json', functions);
const tools = imported.tools.map((t) => t.value);

describe('ToolEmu all_toolkits.json', () => {
  it('has 38 toolkits and 330 tools (SOURCE.md), 15 with a category, 2 tools without exceptions', () => {
    expect(toolkits).toHaveLength(38);
    expect(toolkits.flatMap((k) => k.tools)).toHaveLength(330);
    expect(toolkits.filter((k) => k.category !== undefined)).toHaveLength(15);
    expect(toolkits.flatMap((k) => k.tools).filter((t) => t.exceptions === undefined)).toHaveLength(2);
  });

  it('imports all 330 tools with no diagnostic: the parameter types are JSON Schema already', () => {
    expect(tools).toHaveLength(330);
    expect(countCodes(diagnostics)).toStrictEqual({});
  });

  it('derives a lowercase name from each ToolEmu name and keeps the source as id', () => {
    expect(tools.filter((t) => t.derived?.includes('name'))).toHaveLength(330);
    expect(new Set(tools.map((t) => t.name)).size).toBe(330);
    expect(tools[0]).toMatchObject({ name: 'terminal_execute', id: 'TerminalExecute' });
  });

  it('has risk lists for 34 toolkits (194 risks), and every tool of them needs approval once completed', () => {
    expect(Object.keys(risks)).toHaveLength(34);
    expect(Object.values(risks).flat()).toHaveLength(194);
    const riskyIds = new Set(toolkits.filter((k) => risks[k.toolkit] !== undefined).flatMap((k) => k.tools.map((t) => `${k.name_for_model}${t.name}`)));
    const completed = tools.filter((t) => riskyIds.has(t.id ?? t.name)).map(complete);
    expect(completed).toHaveLength(riskyIds.size);
    expect(completed.filter((t) => t.approval?.required !== true || t.effects?.mode !== 'write')).toStrictEqual([]);
  });

  it('exports back exactly the adapted functions', () => {
    const back = openaiDialect.export({ ...(imported.bundle ? { bundle: imported.bundle } : {}), tools });
    expect(back[0]?.value).toStrictEqual(functions);
  });
});
