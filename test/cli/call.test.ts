/**
 * `toolcap call` and `toolcap approvals`, in-process, against a temp copy of
 * examples/manifests/toolcap with its own config and SQLite store (nothing
 * is written into the repository).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

let root: string;
let config: string;
let notesFile: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'toolcap-cli-call-'));
  // <root>/ws/proj/{toolcap.config.yaml,toolcap/}: the notes provider writes three folders above its own,
  // which is <root>/ws/.toolcap/notes.txt, still inside root
  const project = join(root, 'ws', 'proj');
  mkdirSync(project, { recursive: true });
  cpSync('examples/manifests/toolcap', join(project, 'toolcap'), { recursive: true });
  config = join(project, 'toolcap.config.yaml');
  // single-user: the CLI acts as the local principal, which asks and then approves
  writeFileSync(config, 'sources: [toolcap/]\nstore: { path: .toolcap/toolcap.db }\napprovals: { selfApproval: true }\n');
  notesFile = join(root, 'ws', '.toolcap', 'notes.txt');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('toolcap call', () => {
  it('runs text.reverse and prints the result as JSON (exit 0)', async () => {
    const r = await cli('call', 'text.reverse', '--config', config, '--args', '{"text":"abc"}', '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'ok', tool: 'text.reverse', provider: 'local', attempts: 1, result: { reversed: 'cba' }, skipped: [] });
    // the store named by the config is the one written, beside the config
    expect(existsSync(join(root, 'ws', 'proj', '.toolcap', 'toolcap.db'))).toBe(true);
  });

  it('without --json prints the result on stdout and the provider on stderr', async () => {
    const r = await cli('call', 'text.reverse', '--config', config, '--args', '{"text":"xy"}');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ reversed: 'yx' });
    expect(r.stderr).toMatch(/text\.reverse ran on provider local in \d+ ms \(1 attempt\)/);
  });

  it('runs a command provider (text.word_count)', async () => {
    const r = await cli('call', 'text.word_count', '--config', config, '--args', '{"text":"one two  three"}', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ok', provider: 'node-script', result: { words: 3, characters: 14 } });
  });

  it.each([
    ['not JSON', '{text:abc}'],
    ['cut short', '{"text":'],
    ['empty', ''],
  ])('--args %s is a usage error (exit 2), before anything runs', async (_what, args) => {
    const r = await cli('call', 'text.reverse', '--config', config, '--args', args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--args is not JSON/);
    expect(r.stdout).toBe('');
  });

  it.each([
    ['a wrong type', '{"text":5}', '/text'],
    ['a missing field', '{}', '/'],
    ['an extra field', '{"text":"a","more":1}', '/'],
    ['an array', '["a"]', null],
    ['__proto__', '{"text":"a","__proto__":{"polluted":1}}', '/'],
  ] as Array<[string, string, string | null]>)('arguments with %s fail with INVALID_ARGUMENTS (exit 1)', async (_what, args, pointer) => {
    const r = await cli('call', 'text.reverse', '--config', config, '--args', args);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^toolcap: INVALID_ARGUMENTS: /);
    if (pointer === null) expect(r.stderr).toMatch(/must be a JSON object, not an array/);
    else expect(r.stderr).toContain(`  ${pointer}: `);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('failing arguments with --json also print the error as JSON on stdout', async () => {
    const r = await cli('call', 'text.reverse', '--config', config, '--args', '{"text":5}', '--json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'error', code: 'INVALID_ARGUMENTS', pointer: '/text' });
  });

  it.each([
    ['an unknown tool', ['call', 'no.such.tool'], /TOOL_NOT_FOUND/],
  ])('%s is TOOL_NOT_FOUND (exit 1)', async (_what, argv, message) => {
    const r = await cli(...argv, '--config', config);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
  });

  it('a persona no manifest names is UNKNOWN_PERSONA (exit 1), naming the personas the local principal may use', async () => {
    const r = await cli('call', 'no.such.tool', '--persona', 'ops', '--config', config);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/UNKNOWN_PERSONA: .*"ops"/);
  });

  it('a call without the tool name is a usage error', async () => {
    const r = await cli('call');
    expect(r.code).toBe(2);
  });
});

describe('toolcap approvals', () => {
  let id: string;

  it('call notes.append waits for approval (exit 75, not 0): stdout names the id and the approve command', async () => {
    const r = await cli('call', 'notes.append', '--config', config, '--args', '{"line":"hello from the cli"}', '--caller', 'agent:cli');
    expect(r.code).toBe(75);
    expect(r.stderr).toContain('nothing ran yet; exit 75 means waiting for approval');
    const m = /Waiting for approval (apr_[0-9a-f]{32})/.exec(r.stdout);
    expect(m).not.toBeNull();
    id = m![1]!;
    expect(r.stdout).toContain(`toolcap approvals approve ${id} --config ${config}`);
    expect(r.stdout).toContain(`toolcap approvals deny ${id} --config ${config}`);
    expect(existsSync(notesFile)).toBe(false);
  });

  it('approvals list --json shows it pending (from another process-like run, through the store)', async () => {
    const r = await cli('approvals', 'list', '--config', config, '--json');
    expect(r.code).toBe(0);
    const { approvals } = JSON.parse(r.stdout);
    expect(approvals).toEqual([expect.objectContaining({ id, tool: 'notes.append', status: 'pending', arguments: { line: 'hello from the cli' }, requestedByPrincipal: 'local' })]);
  });

  it('approvals list (text) prints it', async () => {
    const r = await cli('approvals', 'list', '--config', config);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(id);
    expect(r.stdout).toContain('notes.append');
  });

  it('approvals approve runs it on local-file (the notes service on loopback is refused by egress or fails over; exit 0)', async () => {
    const r = await cli('approvals', 'approve', id, '--config', config, '--by', 'reviewer:ann', '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    // the decider is the local principal; --by is only a name beside it
    expect(out.approval).toMatchObject({ id, status: 'executed', decidedByPrincipal: 'local', decidedVia: 'cli' });
    expect(out.call).toMatchObject({ status: 'ok', tool: 'notes.append', provider: 'local-file', result: { appended: 'hello from the cli' } });
    expect(readFileSync(notesFile, 'utf8')).toBe('hello from the cli\n');
  });

  it.each(['deny', 'approve'])('approvals %s on a decided one is APPROVAL_CONFLICT (exit 1), nothing runs again', async (action) => {
    const r = await cli('approvals', action, id, '--config', config);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/APPROVAL_CONFLICT: .*executed, not pending/);
    expect(readFileSync(notesFile, 'utf8')).toBe('hello from the cli\n');
  });

  it('approvals list --status executed shows it; the default (pending) list is empty', async () => {
    const executed = JSON.parse((await cli('approvals', 'list', '--config', config, '--status', 'executed', '--json')).stdout);
    expect(executed.approvals.map((a: { id: string }) => a.id)).toEqual([id]);
    const pending = await cli('approvals', 'list', '--config', config);
    expect(pending.code).toBe(0);
    expect(pending.stdout).toBe('No pending approvals.\n');
  });

  it('deny: a second request denied with a note; nothing is written', async () => {
    const asked = await cli('call', 'notes.append', '--config', config, '--args', '{"line":"never"}', '--json');
    expect(asked.code).toBe(75);
    const pending = JSON.parse(asked.stdout);
    expect(pending.status).toBe('pending_approval');
    const denied = await cli('approvals', 'deny', pending.approval.id, '--config', config, '--note', 'not now', '--json');
    expect(denied.code).toBe(0);
    expect(JSON.parse(denied.stdout).approval).toMatchObject({ id: pending.approval.id, status: 'denied', note: 'not now' });
    expect(readFileSync(notesFile, 'utf8')).not.toContain('never');
  });

  it.each([
    ['approve without an id', ['approvals', 'approve']],
    ['deny without an id', ['approvals', 'deny']],
    ['list with a bogus --status', ['approvals', 'list', '--status', 'bogus']],
  ])('%s is a usage error (exit 2)', async (_what, argv) => {
    const r = await cli(...argv, '--config', config);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toBe('');
  });

  it.each(['approve', 'deny'])('approvals %s of an unknown id is APPROVAL_NOT_FOUND (exit 1)', async (action) => {
    const r = await cli('approvals', action, 'apr_nope', '--config', config);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/APPROVAL_NOT_FOUND/);
  });
});
