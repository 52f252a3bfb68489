import { describe, expect, it } from 'vitest';
import { complete } from '../../src/model/derive.js';
import type { Tool } from '../../src/model/schema.js';
import { createSchemaChecker } from '../../src/validate/json-schema.js';
import { lintReferences, lintTool, suggestName } from '../../src/validate/rules.js';

const lint = (tool: Tool, compile = false) =>
  lintTool(complete(tool), (path) => ({ file: 't.yaml', pointer: `/${path.replace('.', '/')}` }), createSchemaChecker({ compile })).map((d) => [d.code, d.severity, d.pointer]);

describe('lintTool', () => {
  it.each<[string, Tool, Array<[string, string, string]>]>([
    ['a clean read tool', { name: 'a.read', effects: { mode: 'read', sideEffects: 'none' } }, []],
    ['an uppercase name', { name: 'Bad', effects: { mode: 'read', sideEffects: 'none' } }, [['INVALID_TOOL_NAME', 'error', '/name']]],
    ['the MCP gateway\'s call tool', { name: 'toolcap_call_tool', effects: { mode: 'read', sideEffects: 'none' } }, [['INVALID_TOOL_NAME', 'error', '/name']]],
    ['the MCP gateway\'s approval-status tool', { name: 'toolcap_approval_status', effects: { mode: 'read', sideEffects: 'none' } }, [['INVALID_TOOL_NAME', 'error', '/name']]],
    ['a dotted name like a gateway tool\'s', { name: 'toolcap.call.tool', effects: { mode: 'read', sideEffects: 'none' } }, []],
    ['a capability without a dot', { name: 'a', capabilities: ['probe'], effects: { mode: 'read', sideEffects: 'none' } }, [['INVALID_CAPABILITY_NAME', 'warning', '/capabilities']]],
    ['an uppercase capability', { name: 'a', capabilities: ['Tasks.Probe'], effects: { mode: 'read', sideEffects: 'none' } }, [['INVALID_CAPABILITY_NAME', 'error', '/capabilities']]],
    ['read mode with a write side effect', { name: 'a', effects: { mode: 'read', sideEffects: 'write', rollbackHint: 'x' } }, [['CONTRADICTORY_CLAIM', 'error', '/effects/sideEffects']]],
    ['safe retries on a non-idempotent tool', { name: 'a', effects: { mode: 'read', sideEffects: 'none' }, execution: { retryClass: 'safe', idempotent: false } }, [['RETRY_NOT_IDEMPOTENT', 'error', '/execution/retryClass']]],
    ['safe retries on an idempotent tool', { name: 'a', effects: { mode: 'read', sideEffects: 'none' }, execution: { retryClass: 'safe', idempotent: true } }, []],
    ['system effects without approval', { name: 'a', effects: { sideEffects: 'system', rollbackHint: 'x' } }, [['SYSTEM_WITHOUT_APPROVAL', 'warning', '/effects/sideEffects']]],
    ['system effects with consent', { name: 'a', effects: { sideEffects: 'system', rollbackHint: 'x' }, approval: { consent: true } }, []],
    ['a write without rollback hint', { name: 'a', effects: { mode: 'write', sideEffects: 'write' }, approval: { required: true } }, [['WRITE_WITHOUT_ROLLBACK', 'warning', '/effects/sideEffects']]],
    ['an irreversible write says so', { name: 'a', effects: { mode: 'write', sideEffects: 'write', reversible: 'none' } }, []],
    ['a broken input schema', { name: 'a', effects: { mode: 'read', sideEffects: 'none' }, inputSchema: { type: 'object', properties: { x: { type: 'strin' } } } }, [['INVALID_JSON_SCHEMA', 'error', '/inputSchema']]],
    ['a broken output schema', { name: 'a', effects: { mode: 'read', sideEffects: 'none' }, outputSchema: { required: 'x' } }, [['INVALID_JSON_SCHEMA', 'error', '/outputSchema']]],
    ['derived values are not linted', { name: 'a' }, []],
  ])('%s', (_name, tool, expected) => {
    expect(lint(tool)).toEqual(expected);
  });

  it('compiling catches what meta-validation cannot: an unresolvable $ref', () => {
    const tool: Tool = { name: 'a', effects: { mode: 'read', sideEffects: 'none' }, inputSchema: { $ref: '#/$defs/missing' } };
    expect(lint(tool)).toEqual([]);
    expect(lint(tool, true)).toEqual([['INVALID_JSON_SCHEMA', 'error', '/inputSchema']]);
  });

  it.each([
    ['Bad Name', 'bad_name'],
    ['--x', 'x'],
    ['!!!', 'tool'],
  ])('suggestName(%s) = %s', (input, expected) => {
    expect(suggestName(input)).toBe(expected);
  });
});

describe('lintTool: the regular expressions in a schema', () => {
  // the locator appends the pointer inside the field, so each finding shows where it is
  const located = (inputSchema: NonNullable<Tool['inputSchema']>) =>
    lintTool(complete({ name: 'a', effects: { mode: 'read', sideEffects: 'none' }, inputSchema }), (path, below) => ({ file: 't.yaml', pointer: `/${path}${below ?? ''}` }), createSchemaChecker()).map((d) => [d.code, d.pointer]);
  const shared = { type: 'object', properties: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, { type: 'string' }])), patternProperties: { '^x(?=y)': true } };

  it.each<[string, NonNullable<Tool['inputSchema']>, string[][]]>([
    ['patterns the linear engine runs', { type: 'object', properties: { x: { type: 'string', pattern: '^(a+)+$' } }, patternProperties: { '^\\s*[a-z]+$': true } }, []],
    ['a lookahead', { properties: { x: { pattern: '^(?=.*\\d).{8,}$' } } }, [['PATTERN_BACKTRACKS', '/inputSchema/properties/x/pattern']]],
    ['a backreference in a patternProperties key (escaped in the pointer)', { patternProperties: { '^(a)/\\1$': {} } }, [['PATTERN_BACKTRACKS', '/inputSchema/patternProperties/^(a)~1\\1$']]],
    ['not ECMAScript with the u flag', { properties: { x: { items: { pattern: '^[\\w-.]+$' } } } }, [['INVALID_JSON_SCHEMA', '/inputSchema/properties/x/items/pattern']]],
    ['a patternProperties key that is not ECMAScript', { patternProperties: { '(?<1>x)': true } }, [['INVALID_JSON_SCHEMA', '/inputSchema/patternProperties/(?<1>x)']]],
    ['under anyOf, $defs, prefixItems and if/then', { anyOf: [{ pattern: '(?<!a)b' }], $defs: { d: { pattern: '\\p{Script=Greek}' } }, prefixItems: [{}, { pattern: '(?!x)' }], if: { then: {} }, then: { pattern: '\\k<n>(?<n>a)' } } as NonNullable<Tool['inputSchema']>,
      [['PATTERN_BACKTRACKS', '/inputSchema/anyOf/0/pattern'], ['PATTERN_BACKTRACKS', '/inputSchema/$defs/d/pattern'], ['PATTERN_BACKTRACKS', '/inputSchema/prefixItems/1/pattern'], ['PATTERN_BACKTRACKS', '/inputSchema/then/pattern']]],
    ['a property named pattern, and data that looks like a schema', { properties: { pattern: { type: 'string' } }, examples: [{ pattern: '(?=x)' }], const: { pattern: '(?=x)' }, default: { pattern: '[' } }, []],
    ['one subschema shared by two properties, reported at both', { properties: { a: shared, b: shared } }, [['PATTERN_BACKTRACKS', '/inputSchema/properties/a/patternProperties/^x(?=y)'], ['PATTERN_BACKTRACKS', '/inputSchema/properties/b/patternProperties/^x(?=y)']]],
  ])('%s', (_name, schema, expected) => {
    expect(located(schema)).toEqual(expected);
    // the second walk reads what the first remembered: the same findings
    expect(located(schema)).toEqual(expected);
  });

  it('keeps a long pattern and a long pointer short in the message, the location whole', () => {
    const key = `^(?=x)${'a'.repeat(10_000)}$`;
    const found = lintTool(complete({ name: 'a', effects: { mode: 'read', sideEffects: 'none' }, inputSchema: { patternProperties: { [key]: true } } }), (path, below) => ({ file: 't.yaml', pointer: `/${path}${below ?? ''}` }), createSchemaChecker());
    expect(found).toHaveLength(1);
    expect(found[0]!.message.length).toBeLessThan(1_000);
    expect(found[0]!.pointer).toBe(`/inputSchema/patternProperties/${key}`);
  });

  it('reports at most 20 per schema, the last saying how many more', () => {
    const properties = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`p${i}`, { pattern: `(?=${i})` }]));
    const found = lintTool(complete({ name: 'a', effects: { mode: 'read', sideEffects: 'none' }, inputSchema: { properties } }), (path) => ({ file: 't.yaml', pointer: `/${path}` }), createSchemaChecker());
    expect(found).toHaveLength(20);
    expect(found.every((d) => d.code === 'PATTERN_BACKTRACKS' && d.severity === 'warning')).toBe(true);
    expect(found[19]!.message).toContain('(5 more patterns in inputSchema are not listed)');
    expect(found[18]!.message).not.toContain('more patterns');
  });
});

describe('lintReferences', () => {
  it('reports each unknown name once, with the referring location', () => {
    const found = lintReferences(
      [{ from: 'Skill "s"', kind: 'tool', names: ['a', 'zz'], field: 'tools', locate: () => ({ file: 's.json', line: 3, column: 7 }) }],
      { tools: new Set(['a']), skills: new Set() },
    );
    expect(found).toMatchObject([{ code: 'UNKNOWN_REFERENCE', file: 's.json', line: 3, column: 7 }]);
  });
});
