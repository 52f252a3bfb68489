/**
 * The GitHub MCP server's tool definitions (../shared/corpus/mcp-github-server,
 * see its SOURCE.md): 114 tools in `tools.json`, 3 more behind feature flags.
 * Every tool carries annotations, so every tool gets hints and derived effects.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcpDialect } from '../../src/dialects/mcp.js';
import { detectDialect } from '../../src/dialects/lookup.js';
import type { ImportedDocument } from '../../src/dialects/types.js';
import { createImportContext } from '../../src/source/context.js';
import { parseSource } from '../../src/source/source.js';
import { canonicalValidator } from '../../src/model/validator.js';
import type { Tool } from '../../src/model/schema.js';
import { importFile } from '../dialects/contract.js';

const DIR = '../shared/corpus/mcp-github-server';
const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

/** The destructive tools SOURCE.md lists. */
const DESTRUCTIVE = [
  'actions_run_trigger',
  'delete_file',
  'delete_pending_pull_request_review',
  'delete_repository',
  'discussion_comment_write',
  'label_write',
  'manage_notification_subscription',
  'manage_repository_notification_subscription',
  'projects_write',
  'remove_sub_issue',
];

describe('mcp-github-server/tools.json', () => {
  const { value, imported, diagnostics } = importFile(mcpDialect, join(DIR, 'tools.json'));
  const tools = imported.tools.map((t) => t.value);
  const named = (pattern: RegExp) => tools.filter((t) => pattern.test(t.name));

  it('has 114 tools, is detected as MCP, and imports with no diagnostics', () => {
    expect(tools).toHaveLength(114);
    expect(detectDialect(value, { path: 'tools.json' })?.dialect.id).toBe('mcp');
    expect(diagnostics).toEqual([]);
  });

  it('round-trips exactly, icons and _meta included', () => {
    expect(plain(mcpDialect.export({ tools })[0]?.value)).toStrictEqual(plain(value));
    expect(tools.filter((t) => t.extensions?.['mcp']?.['fields'] !== undefined)).toHaveLength(6);
    expect(tools.filter((t) => t.metadata !== undefined)).toHaveLength(5);
  });

  it('gives canonical entries the published schema accepts', () => {
    expect(canonicalValidator()({ toolcap: 1, tools: plain(tools) })).toBe(true);
  });

  it('keeps every annotation in hints and takes annotations.title as the title', () => {
    expect(tools.every((t) => t.hints?.readOnly !== undefined && t.title !== undefined)).toBe(true);
    expect(tools.every((t) => t.extensions?.['mcp']?.['titleIn'] === 'annotations')).toBe(true);
  });

  it('marks 56 tools read-only and 58 not', () => {
    const readOnly = tools.filter((t) => t.hints?.readOnly === true);
    expect(readOnly).toHaveLength(56);
    expect(tools.filter((t) => t.hints?.readOnly === false)).toHaveLength(58);
    expect(tools.filter((t) => t.effects?.mode === 'read')).toHaveLength(56);
    expect(tools.filter((t) => t.effects?.mode === 'write')).toHaveLength(58);
  });

  it('reads the 10 destructive tools as irreversible high-risk writes', () => {
    const destructive = tools.filter((t) => t.hints?.destructive === true);
    expect(destructive.map((t) => t.name).sort()).toEqual(DESTRUCTIVE);
    for (const t of destructive) expect(t.effects).toMatchObject({ mode: 'write', reversible: 'none', risk: 'high' });
  });

  it('reads the 24 writes without destructiveHint by MCP default: irreversible; the 24 additive ones as partly reversible', () => {
    const silent = tools.filter((t) => t.hints?.readOnly === false && t.hints.destructive === undefined);
    expect(silent).toHaveLength(24);
    for (const t of silent) expect(t.effects).toMatchObject({ reversible: 'none', risk: 'high' });
    expect(tools.filter((t) => t.effects?.reversible === 'partial')).toHaveLength(24);
  });

  it.each([
    [/^delete_/, { mode: 'write', reversible: 'none', risk: 'high' }],
    [/^merge_pull_request$/, { mode: 'write', sideEffects: 'write', reversible: 'none' }],
    [/^(get|list|search)_/, { mode: 'read', sideEffects: 'read_external_service', reversible: 'full' }],
  ])('%s -> %j', (pattern, effects) => {
    const matching = named(pattern);
    expect(matching.length).toBeGreaterThan(0);
    for (const t of matching) expect(t.effects, t.name).toMatchObject(effects);
  });

  it('lets reads be retried and writes only when idempotent', () => {
    const retry = (t: Tool) => t.execution?.retryClass;
    expect(named(/^get_/).every((t) => retry(t) === 'safe')).toBe(true);
    expect(tools.filter((t) => t.effects?.mode === 'write' && retry(t) === 'safe').map((t) => t.hints?.idempotent)).toEqual([true, true]);
  });
});

describe('mcp-github-server/feature_flag_variants.json', () => {
  /**
   * Adapter: the file is an array of `{ snapshot, tool }`; its tools, taken
   * out as a bare array, are an MCP tool list.
   */
  function variants(): ImportedDocument {
    const entries = JSON.parse(readFileSync(join(DIR, 'feature_flag_variants.json'), 'utf8')) as Array<{ tool: unknown }>;
    const parsed = parseSource('feature_flag_variants.tools.json', JSON.stringify(entries.map((e) => e.tool), null, 2));
    if (!parsed.file) throw new Error('adapter output does not parse');
    const context = createImportContext(parsed.file);
    const imported = mcpDialect.import(context);
    expect(context.diagnostics).toEqual([]);
    return imported;
  }

  it('the file itself is not a tool list', () => {
    const parsed = parseSource('feature_flag_variants.json', readFileSync(join(DIR, 'feature_flag_variants.json'), 'utf8'));
    expect(mcpDialect.detect(parsed.file?.value, { path: 'feature_flag_variants.json' })).toBe(0);
  });

  it('has 3 more tools, 2 read-only', () => {
    const tools = variants().tools.map((t) => t.value);
    expect(tools.map((t) => t.name)).toEqual(['find_duplicate', 'issue_dependency_read', 'issue_dependency_write']);
    expect(tools.map((t) => t.effects?.mode)).toEqual(['read', 'read', 'write']);
  });
});
