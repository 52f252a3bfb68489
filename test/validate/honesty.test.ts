import { describe, expect, it } from 'vitest';
import { complete } from '../../src/model/derive.js';
import { effectEvidence, inferWrites, words } from '../../src/model/evidence.js';
import type { Tool } from '../../src/model/schema.js';
import { lintHonesty } from '../../src/validate/honesty.js';
// @ts-expect-error: plain JavaScript module shared with the benchmarks
import { apiBankCases, score } from '../../bench/corpus.mjs';

const http = (method: string) => [{ name: 'http', config: { method, path: '/x' } }];

describe('effectEvidence', () => {
  it.each<[string, Parameters<typeof effectEvidence>[0], Array<[string, string]>]>([
    ['a GET', { name: 'x', providers: http('get') }, [['http-method', 'read']]],
    ['a DELETE', { name: 'x', providers: http('DELETE') }, [['http-method', 'destructive']]],
    ['a POST', { name: 'x', providers: http('POST') }, [['http-method', 'write']]],
    ['readOnlyHint true', { name: 'x', hints: { readOnly: true } }, [['hints', 'read']]],
    ['readOnlyHint false, additive', { name: 'x', hints: { readOnly: false, destructive: false } }, [['hints', 'write']]],
    ['readOnlyHint false, destructive by default', { name: 'x', hints: { readOnly: false } }, [['hints', 'destructive']]],
    ['a camelCase verb', { name: 'DeleteAccount' }, [['name', 'destructive']]],
    ['only the last dotted segment of a name', { name: 'deploy.diff_manifest' }, [['name', 'read']]],
    ['the first verb of a description', { name: 'x', description: 'Sends an email. Lists nothing.' }, [['description', 'write']]],
    ['no evidence', { name: 'weather' }, []],
  ])('%s', (_n, tool, expected) => {
    expect(effectEvidence(tool).map((e) => [e.source, e.says])).toEqual(expected);
  });

  it.each([
    ['getHTTPResponse', ['get', 'http', 'response']],
    ['repos/get-content', ['repos', 'get', 'content']],
    ['auth.revoke', ['auth', 'revoke']],
  ])('words(%s)', (input, expected) => {
    expect(words(input)).toEqual(expected);
  });

  it.each<[Parameters<typeof inferWrites>[0], string]>([
    [[], 'unknown'],
    [[{ source: 'name', says: 'read', detail: '' }], 'read'],
    [[{ source: 'http-method', says: 'read', detail: 'GET' }, { source: 'name', says: 'destructive', detail: '"revoke"' }], 'write'],
  ])('inferWrites(%j) = %s', (evidence, expected) => {
    expect(inferWrites(evidence)).toBe(expected);
  });
});

describe('lintHonesty', () => {
  const lint = (tool: Tool) => lintHonesty(complete(tool), (path) => ({ pointer: `/${path}` })).map((d) => [d.code, d.pointer]);
  it.each<[string, Tool, Array<[string, string]>]>([
    ['read claim on a DELETE', { name: 'x', effects: { mode: 'read' }, providers: http('DELETE') }, [['EVIDENCE_CONTRADICTS_CLAIM', '/effects.mode']]],
    ['read claim on a GET that revokes (Slack auth.revoke)', { name: 'auth.revoke', effects: { mode: 'read' }, providers: http('GET') }, [['EVIDENCE_CONTRADICTS_CLAIM', '/effects.mode']]],
    ['read-only side effects against readOnlyHint false', { name: 'x', effects: { sideEffects: 'none' }, hints: { readOnly: false } }, [['EVIDENCE_CONTRADICTS_CLAIM', '/effects.sideEffects']]],
    ['full reversibility of a destructive tool', { name: 'delete_file', effects: { mode: 'write', sideEffects: 'filesystem', reversible: 'full' } }, [['EVIDENCE_CONTRADICTS_CLAIM', '/effects.reversible']]],
    ['an honest read', { name: 'list_files', effects: { mode: 'read' }, providers: http('GET') }, []],
    ['an honest write', { name: 'delete_file', effects: { mode: 'write', reversible: 'none' } }, []],
    ['derived values are never claims', { name: 'delete_file' }, []],
    ['a declared write mode with a read-only category is not under-claiming', { name: 'send_mail', effects: { mode: 'write', sideEffects: 'read_external_service' } }, []],
  ])('%s', (_n, tool, expected) => {
    expect(lint(tool)).toEqual(expected);
  });
});

describe('read/write inference against API-Bank\'s own labels', () => {
  it('keeps precision and recall of "writes" from word evidence at or above the measured floor', () => {
    const cases = apiBankCases() as Array<{ name: string; description: string; writes: boolean }>;
    expect(cases).toHaveLength(101);
    expect(cases.filter((c) => c.writes)).toHaveLength(47);
    const s = score(cases, (c: { name: string; description: string }) => inferWrites(effectEvidence(c)) === 'write') as { precision: number; recall: number };
    // measured 89.6% / 91.5% when written; a change to the word lists must not make it worse
    expect(s.precision).toBeGreaterThanOrEqual(0.89);
    expect(s.recall).toBeGreaterThanOrEqual(0.91);
  });
});
