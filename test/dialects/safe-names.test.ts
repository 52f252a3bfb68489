/**
 * Names every target accepts (src/dialects/safe-names.ts): table-driven over
 * renames, collisions and long names, and the OpenAI export that uses it.
 */
import { describe, expect, it } from 'vitest';
import { mcpDialect } from '../../src/dialects/mcp.js';
import { openaiDialect } from '../../src/dialects/openai.js';
import { MCP_NAME_RULE, OPENAI_NAME_RULE, safeNames, type NameRule } from '../../src/dialects/safe-names.js';
import type { Tool } from '../../src/model/schema.js';

const long = (n: number, head = 'a') => `${head}.${'x'.repeat(n - head.length - 1)}`;

describe('safeNames', () => {
  it.each<[string, NameRule, string[], Record<string, string>, Array<[string, string]>]>([
    ['valid names keep themselves', OPENAI_NAME_RULE, ['get_weather', 'getWeather', 'a-b'], { get_weather: 'get_weather', getWeather: 'getWeather', 'a-b': 'a-b' }, []],
    ['dots become _', OPENAI_NAME_RULE, ['notes.append', 'text.word_count'], { 'notes.append': 'notes_append', 'text.word_count': 'text_word_count' }, [['RENAMED', 'notes.append'], ['RENAMED', 'text.word_count']]],
    ['other characters too', OPENAI_NAME_RULE, ['repo/get issue'], { 'repo/get issue': 'repo_get_issue' }, [['RENAMED', 'repo/get issue']]],
    [
      'a collision with a valid name: the valid one keeps it',
      OPENAI_NAME_RULE,
      ['notes_append', 'notes.append'],
      { notes_append: 'notes_append', 'notes.append': 'notes_append_09d4a50f' },
      [['COLLISION', 'notes.append']],
    ],
    [
      'a collision of two mapped names: the first in code-unit order keeps it',
      OPENAI_NAME_RULE,
      ['a/b', 'a.b'],
      { 'a.b': 'a_b', 'a/b': 'a_b_c14cddc0' },
      [['RENAMED', 'a.b'], ['COLLISION', 'a/b']],
    ],
    ['dots are fine for MCP', MCP_NAME_RULE, ['notes.append'], { 'notes.append': 'notes.append' }, []],
  ])('%s', (_what, rule, names, expected, changes) => {
    const mapping = safeNames(names, rule);
    expect(Object.fromEntries(mapping.safe)).toEqual(expected);
    expect(mapping.notes.map((n) => [n.change, n.original])).toEqual(changes);
    for (const safe of mapping.safe.values()) expect(safe).toMatch(rule.pattern);
  });

  it.each([
    ['openai', 65, 64, OPENAI_NAME_RULE],
    ['openai', 200, 64, OPENAI_NAME_RULE],
    ['mcp', 129, 128, MCP_NAME_RULE],
  ])('%s: a %i-character name is cut to %i, ending in a hash of the name', (_id, length, max, rule) => {
    const name = long(length);
    const mapping = safeNames([name], rule);
    const safe = mapping.safe.get(name)!;
    expect(safe).toHaveLength(max);
    expect(safe).toMatch(rule.pattern);
    expect(safe).toMatch(/_[0-9a-f]{8}$/);
    expect(mapping.notes).toEqual([expect.objectContaining({ change: 'SHORTENED', original: name, safe })]);
  });

  it('two long names alike up to the cut stay apart', () => {
    const a = `${long(70)}a`;
    const b = `${long(70)}b`;
    const mapping = safeNames([a, b], OPENAI_NAME_RULE);
    expect(mapping.safe.get(a)).not.toBe(mapping.safe.get(b));
  });

  it('is deterministic, whatever the order, and a bijection', () => {
    const names = ['notes.append', 'notes_append', 'a.b', 'a/b', 'a_b', long(90), 'x'];
    const one = safeNames(names, OPENAI_NAME_RULE);
    const other = safeNames([...names].reverse(), OPENAI_NAME_RULE);
    expect(Object.fromEntries(other.safe)).toEqual(Object.fromEntries(one.safe));
    expect(one.originals.size).toBe(new Set(names).size);
    for (const [original, safe] of one.safe) expect(one.originals.get(safe)).toBe(original);
  });
});

describe('export to OpenAI', () => {
  const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({ name, description: `The ${name} tool`, inputSchema: { type: 'object' }, ...extra });
  const names = (value: unknown) => (value as Array<{ function: { name: string } }>).map((e) => e.function.name);

  it('writes names OpenAI accepts, records the mapping and says what changed', () => {
    const [file] = openaiDialect.export({ tools: [tool('notes.append'), tool('notes_append'), tool('text.reverse'), tool(long(80))] });
    expect(names(file!.value).every((n) => OPENAI_NAME_RULE.pattern.test(n))).toBe(true);
    expect(names(file!.value).slice(0, 3)).toEqual(['notes_append_09d4a50f', 'notes_append', 'text_reverse']);
    expect(file!.names).toMatchObject({ notes_append_09d4a50f: 'notes.append', notes_append: 'notes_append', text_reverse: 'text.reverse' });
    expect(file!.nameNotes?.map((l) => l.split(':')[0])).toEqual(['SHORTENED', 'COLLISION', 'RENAMED']);
  });

  it('writes nothing extra when every name is already accepted', () => {
    const [file] = openaiDialect.export({ tools: [tool('get_weather')] });
    expect(file!.names).toBeUndefined();
    expect(file!.nameNotes).toBeUndefined();
  });

  it('a name an OpenAI source wrote itself (BFCL) goes back as it was, with a warning', () => {
    const [file] = openaiDialect.export({ tools: [tool('math.factorial', { extensions: { openai: { shape: 'bare', sourceName: true } } })] });
    expect((file!.value as Array<{ name: string }>)[0]!.name).toBe('math.factorial');
    expect(file!.names).toBeUndefined();
    expect(file!.nameNotes).toEqual([expect.stringMatching(/^KEPT: "math\.factorial"/)]);
  });
});

describe('export to MCP', () => {
  const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({ name, description: `The ${name} tool`, ...extra });
  const names = (value: unknown) => (value as { tools: Array<{ name: string }> }).tools.map((t) => t.name);

  it('keeps dotted names (MCP allows them), shortens one over 128 characters, and records the mapping', () => {
    const longName = long(140);
    const [file] = mcpDialect.export({ tools: [tool('notes.append'), tool(longName)] });
    const written = names(file!.value);
    expect(written[0]).toBe('notes.append');
    expect(written[1]).toHaveLength(128);
    expect(file!.names?.[written[1]!]).toBe(longName);
    expect(file!.nameNotes).toEqual([expect.stringMatching(/^SHORTENED: /)]);
  });

  it("a name the MCP server wrote itself (its id) goes back as it was", () => {
    const [file] = mcpDialect.export({ tools: [tool('repo_get_issue', { id: 'repo/get_issue' })] });
    expect(names(file!.value)).toEqual(['repo/get_issue']);
    expect(file!.nameNotes).toBeUndefined();
  });
});
