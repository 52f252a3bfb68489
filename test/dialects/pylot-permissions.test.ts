import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { effectEvidence } from '../../src/model/evidence.js';
import { buildCatalog } from '../../src/registry/catalog.js';
import { cli } from '../cli/helpers.js';

/** A one-tool Pylot manifest whose entry has `permissions` as given (undefined: no key at all). */
function manifest(permissions: string[] | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), 'pylot-perm-'));
  const entry = { name: 'word_count', description: 'Count the words of a text', module: 'tools.text', ...(permissions ? { permissions } : {}) };
  const file = join(dir, 'tool_manifest.json');
  writeFileSync(file, JSON.stringify({ schema_version: '1.0', metadata: { name: 't' }, tools: [entry] }));
  return file;
}

describe('permissions: [] and silence are different statements', () => {
  it.each<[string, string[] | undefined, { mode: string; sideEffects: string; approval: boolean; evidence: string[]; assumed: string[] }]>([
    ['no permissions key: nothing declared, the conservative reading', undefined, { mode: 'write', sideEffects: 'write', approval: true, evidence: [], assumed: ['effects.mode', 'effects.sideEffects'] }],
    ['permissions: []: declared to need no capability', [], { mode: 'read', sideEffects: 'none', approval: false, evidence: ['declared: permissions []'], assumed: [] }],
    ['permissions: [read_repo]: reads files', ['read_repo'], { mode: 'read', sideEffects: 'filesystem', approval: false, evidence: [], assumed: [] }],
  ])('%s', (_label, permissions, expected) => {
    const { catalog, diagnostics } = buildCatalog([manifest(permissions)]);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const entry = catalog.tools[0];
    expect(entry?.value.effects).toMatchObject({ mode: expected.mode, sideEffects: expected.sideEffects });
    expect(entry?.value.approval?.required).toBe(expected.approval);
    // both readings are derived (not declared effects); only silence is an assumption
    expect(entry?.value.derived).toEqual(expect.arrayContaining(['effects.mode', 'effects.sideEffects']));
    expect((entry?.assumed ?? []).filter((p) => p.startsWith('effects.mode') || p.startsWith('effects.sideEffects')).sort()).toEqual(expected.assumed);
    const evidence = effectEvidence(entry!.value).filter((e) => e.source === 'permissions');
    expect(evidence.map((e) => e.detail)).toEqual(expected.evidence);
  });

  it.each([
    [[], /read off permissions \[\] \(.*tool_manifest\.json:1\): effects\.sideEffects, effects\.mode/],
    [undefined, /^(?![\s\S]*\n  read off)/],
  ])('inspect says where the reading of %j came from', async (permissions, pattern) => {
    const { code, stdout } = await cli('inspect', manifest(permissions as string[] | undefined));
    expect(code).toBe(0);
    expect(stdout).toMatch(pattern);
  });
});

describe('an explicit permissions: [] is a claim the evidence can contradict', () => {
  it.each([
    ['word_count', 'Count the words of a text', false],
    ['send_digest_email', 'Send the digest to the team', true],
  ])('%s', (name, description, contradicted) => {
    const dir = mkdtempSync(join(tmpdir(), 'pylot-perm-'));
    const file = join(dir, 'tool_manifest.json');
    writeFileSync(file, JSON.stringify({ schema_version: '1.0', metadata: { name: 't' }, tools: [{ name, description, module: 'tools.x', permissions: [] }] }));
    const found = buildCatalog([file]).diagnostics.filter((d) => d.code === 'EVIDENCE_CONTRADICTS_CLAIM');
    expect(found.map((d) => d.pointer)).toEqual(contradicted ? ['/tools/0/permissions'] : []);
  });
});
