/**
 * `toolcap search` then `toolcap call --selection`, in-process, on a temp
 * copy of examples/manifests/toolcap: the search keeps its ranking in
 * `.toolcap/selections.json` (mode 0600) and prints the id; the call
 * records what the tool was chosen over in its audit line and its span (the
 * JSON-lines trace file); a malformed id is a usage error.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { cli } from './helpers.js';

let root: string;
let project: string;
let config: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'toolcap-cli-selection-'));
  project = join(root, 'proj');
  mkdirSync(project, { recursive: true });
  cpSync('examples/manifests/toolcap', join(project, 'toolcap'), { recursive: true });
  config = join(project, 'toolcap.config.yaml');
  writeFileSync(config, 'sources: [toolcap/]\nstore: { path: .toolcap/toolcap.db }\n');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('toolcap search, then toolcap call --selection', () => {
  it('the id printed by search is recorded by the call: audit and span say what the tool was chosen over', async () => {
    const found = await cli('search', '--config', config, '--query', 'count the words of a text', '--json');
    expect(found.code).toBe(0);
    const answer = JSON.parse(found.stdout) as { selection: string; candidates: Array<{ name: string; rank: number }> };
    expect(answer.selection).toMatch(/^sel_[A-Za-z0-9_-]{22}$/);
    const file = join(project, '.toolcap', 'selections.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const chosen = answer.candidates.find((c) => c.name === 'text.word_count')!;
    expect(chosen).toBeDefined();

    const human = await cli('search', '--config', config, '--query', 'count the words of a text');
    expect(human.stdout).not.toMatch(/selection/);
    expect(human.stderr).toMatch(/^selection: sel_\S+ \(toolcap call <tool> --selection/m);

    const r = await cli('call', 'text.word_count', '--config', config, '--args', '{"text":"one two"}', '--selection', answer.selection, '--json');
    expect(r.code).toBe(0);
    const { callId } = JSON.parse(r.stdout) as { callId: string };

    const store = await openSqliteStore(join(project, '.toolcap', 'toolcap.db'));
    try {
      const lines = await store.listAudit({ callId });
      const below = answer.candidates.filter((c) => c.rank > chosen.rank).map((c) => c.name);
      expect(lines.at(-1)?.detail).toMatchObject({ selection: { id: answer.selection, found: true, rank: chosen.rank, query: 'count the words of a text' } });
      expect(((lines.at(-1)?.detail as { selection: { selectedOver: Array<{ name: string }> } }).selection.selectedOver).map((c) => c.name)).toEqual(below);
    } finally {
      await store.close();
    }
    const spans = readFileSync(join(project, '.toolcap', 'traces.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { attributes: Record<string, unknown> });
    const span = spans.find((s) => s.attributes['gen_ai.tool.call.id'] === callId);
    expect(span?.attributes).toMatchObject({ 'toolcap.selection.id': answer.selection, 'toolcap.selection.found': true, 'toolcap.selection.rank': chosen.rank });
  });

  it('a malformed id is a usage error (exit 2); an unknown one is recorded as not found', async () => {
    const bad = await cli('call', 'text.reverse', '--config', config, '--args', '{"text":"x"}', '--selection', 'nope');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--selection "nope" is not a selection id/);
    const unknown = await cli('call', 'text.reverse', '--config', config, '--args', '{"text":"x"}', '--selection', 'sel_AAAAAAAAAAAAAAAAAAAAAA', '--json');
    expect(unknown.code).toBe(0);
  });
});

describe('the selection file', () => {
  it('keeps the query through the redactor, at most MAX_SAVED selections, and drops expired ones', async () => {
    const { loadSelection, saveSelection, MAX_SAVED, SAVED_TTL_MS } = await import('../../src/cli/selection-file.js');
    const file = join(root, 'sel', 'selections.json');
    const now = 1_000_000;
    const id = saveSelection(file, 'local', 'deploy with token ghp_abcdefghijklmnopqrstuvwxyz0123', [], now);
    expect(readFileSync(file, 'utf8')).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123');
    expect(loadSelection(file, id, now)?.query).toBe('deploy with token [REDACTED]');
    expect(loadSelection(file, id, now + SAVED_TTL_MS + 1)).toBeUndefined();
    const ids = Array.from({ length: MAX_SAVED + 5 }, (_, i) => saveSelection(file, 'local', `q${i}`, [], now + 1));
    expect((JSON.parse(readFileSync(file, 'utf8')) as { selections: unknown[] }).selections).toHaveLength(MAX_SAVED);
    expect(loadSelection(file, ids[0]!, now + 1)).toBeUndefined();
    expect(loadSelection(file, ids.at(-1)!, now + 1)).toBeDefined();
  });
});
