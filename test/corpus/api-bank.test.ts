/**
 * API-Bank (corpus/api-bank): 101 APIs mapped to OpenAI functions by
 * `apiBankFunction` and imported through the openai dialect. The authors'
 * side-effect label (`type_en`) has no OpenAI home, so it is not imported;
 * it serves here as ground truth that the conservative reading of silence
 * never treats a labelled write as a read.
 */
import { describe, expect, it } from 'vitest';
import { openaiDialect } from '../../src/dialects/openai.js';
import { complete } from '../../src/model/derive.js';
import { apiBankFunction, countCodes, CORPUS, importTools, readJsonl } from './openai-adapters.js';

const records = readJsonl(`${CORPUS}/api-bank/apis.jsonl`) as Array<Record<string, unknown>>;
const functions = records.map(apiBankFunction);
const { imported, diagnostics } = importTools('api-bank/apis.jsonl', functions);
const tools = imported.tools.map((t) => t.value);

describe('API-Bank apis.jsonl', () => {
  it('imports all 101 APIs (SOURCE.md) without an error', () => {
    expect(records).toHaveLength(101);
    expect(tools).toHaveLength(101);
    expect(diagnostics.filter((d) => d.severity !== 'warning')).toStrictEqual([]);
  });

  it('repairs the Python type names of inputs and outputs with one warning each', () => {
    expect(countCodes(diagnostics)).toStrictEqual({ 'SCHEMA_REPAIRED:warning': 342 });
    const spellings = new Set(tools.flatMap((t) => Object.values((t.extensions?.['openai']?.['repairs'] as Record<string, unknown> | undefined) ?? {})));
    expect([...spellings].sort()).toStrictEqual(['List[str]', 'datetime', 'dict', 'float', 'int', 'list', 'str', 'tuple']);
  });

  it('derives lowercase names from the PascalCase class names', () => {
    expect(tools.filter((t) => t.derived?.includes('name'))).toHaveLength(101);
    expect(tools[0]).toMatchObject({ name: 'get_user_token', id: 'GetUserToken' });
    expect(new Set(tools.map((t) => t.name)).size).toBe(101);
  });

  it('leaves out the null fields of ImageCaption and ReceiveEmail', () => {
    const byId = new Map(tools.map((t) => [t.id, t]));
    expect(byId.get('ImageCaption')).toStrictEqual({ name: 'image_caption', id: 'ImageCaption', derived: ['name'], extensions: { openai: { shape: 'bare' } } });
    expect(byId.get('ReceiveEmail')?.inputSchema).toBeUndefined();
  });

  it.each([
    ['get information - database query', 30],
    ['get information - external information query', 1],
    ['get information - tool', 1],
    ['external effect - database operation - create', 12],
    ['external effect - database operation - delete', 12],
    ['external effect - database operation - update', 11],
    ['external effect - database operation - query', 11],
    ['external effect - database operation', 6],
    ['external effect - real-time communication', 6],
    ['other AI model', 11],
  ])('has %s: %i APIs, every one read as a write needing approval once completed', (label, count) => {
    const ids = new Set(records.filter((r) => r['type_en'] === label).map((r) => r['class_name']));
    expect(ids.size).toBe(count);
    const completed = tools.filter((t) => ids.has(t.id)).map(complete);
    expect(completed).toHaveLength(count);
    // The source is silent, so nothing is declared and nothing is loosened.
    for (const tool of completed) {
      expect(tool.effects).toMatchObject({ mode: 'write', sideEffects: 'write', reversible: 'none' });
      expect(tool.approval).toStrictEqual({ required: true });
      expect(tool.derived).toContain('effects.mode');
    }
  });

  it('exports back exactly the adapted functions', () => {
    const back = openaiDialect.export({ ...(imported.bundle ? { bundle: imported.bundle } : {}), tools });
    expect(back[0]?.value).toStrictEqual(functions);
  });
});
