// `toolcap convert --to mcp` of a catalog past one MCP file (MCP_FILE_BYTES):
// to a folder it writes pages, to standard output the whole listing as one
// document, written in pieces (json-chunks.ts), the same tools in the same order.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MCP_FILE_BYTES } from '../../src/dialects/mcp.js';
import { jsonChunks } from '../../src/cli/json-chunks.js';
import { cli } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'toolcap-convert-stdout-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An MCP tools/list with `count` tools whose schemas hold `bytes` of property descriptions each. */
function listing(count: number, bytes: number): string {
  const properties = (i: number) =>
    Object.fromEntries(Array.from({ length: 8 }, (_, p) => [`field_${p}`, { type: 'string', description: `field ${p} of tool ${i}: ${'lorem ipsum '.repeat(bytes / 8 / 12)}` }]));
  const tools = Array.from({ length: count }, (_, i) => ({ name: `read_record_${i}`, description: `Reads record kind ${i}.`, inputSchema: { type: 'object', properties: properties(i) }, annotations: { readOnlyHint: true } }));
  return JSON.stringify({ tools });
}

describe('convert --to mcp past one file', () => {
  const count = 24;
  const source = join(dir, 'big.tools.json');
  writeFileSync(source, listing(count, Math.ceil((MCP_FILE_BYTES * 1.5) / count)));

  it('writes pages to a folder', { timeout: 60_000 }, async () => {
    const out = join(dir, 'pages');
    const run = await cli('convert', source, '--to', 'mcp', '--out', out);
    expect(run.code, run.stderr).toBe(0);
    const pages = readdirSync(out).filter((f) => /^tools-\d+\.json$/.test(f)).sort();
    expect(pages.length).toBeGreaterThan(1);
    const names = pages.flatMap((f) => (JSON.parse(readFileSync(join(out, f), 'utf8')) as { tools: { name: string }[] }).tools.map((t) => t.name));
    expect(names).toEqual(Array.from({ length: count }, (_, i) => `read_record_${i}`));
  });

  it('writes the whole listing to standard output as one document', { timeout: 60_000 }, async () => {
    const run = await cli('convert', source, '--to', 'mcp');
    expect(run.code, run.stderr).toBe(0);
    const written = JSON.parse(run.stdout) as { tools: { name: string; inputSchema: { properties: object } }[] };
    expect(written.tools.map((t) => t.name)).toEqual(Array.from({ length: count }, (_, i) => `read_record_${i}`));
    expect(Object.keys(written.tools[3]!.inputSchema.properties)).toHaveLength(8);
    // indented as every JSON toolcap writes
    expect(run.stdout).toBe(`${JSON.stringify(written, null, 2)}\n`);
  });
});

describe('jsonChunks', () => {
  const deep = { a: { b: { c: { d: { e: [1, { f: 'g' }] } } } } };
  it.each([
    ['a number', 1],
    ['a string with quotes and a newline', 'x"\ny'],
    ['null', null],
    ['empty containers', { a: [], b: {}, c: [[]], d: [{}] }],
    ['deep nesting past the split depth', deep],
    ['arrays of arrays', [1, [2, [3, [4, { a: 5 }]]]]],
    ['undefined, functions and symbols', { u: undefined, f: () => 1, s: Symbol('s'), list: [undefined, () => 1, Symbol('t')] }],
    ['toJSON', { when: new Date(0), custom: { toJSON: () => ({ x: [1, 2] }) } }],
    ['keys that need escaping', { 'k"\n': 'v', '': 0 }],
    // eslint-disable-next-line no-sparse-arrays
    ['holes in arrays', [1, , [, 2]]],
  ])('joins to JSON.stringify for %s', (_what, value) => {
    for (const indent of [0, 2, 4]) expect([...jsonChunks(value, indent)].join('')).toBe(JSON.stringify(value, null, indent));
  });

  it('yields a container past the split depth in pieces, not as one string', () => {
    const tools = Array.from({ length: 50 }, (_, i) => ({ name: `t${i}` }));
    expect([...jsonChunks({ result: { tools } })].length).toBeGreaterThan(50);
  });
});
