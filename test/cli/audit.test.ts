import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

/** A project folder with the example runtime tools and its own store, so nothing lands in the checkout. */
function project(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolcap-audit-')));
  cpSync('examples/manifests/toolcap', join(dir, 'toolcap'), { recursive: true });
  writeFileSync(join(dir, 'toolcap.config.yaml'), 'sources: [toolcap/]\nstore: { path: .toolcap/toolcap.db }\n');
  return dir;
}

describe('toolcap audit and the trace file', () => {
  let dir = '';
  let config = '';
  beforeEach(() => {
    dir = project();
    config = join(dir, 'toolcap.config.yaml');
  });
  afterEach(() => {
    dir = '';
  });

  it('lists a call with its id, provider and caller, and the span is in traces.jsonl with the same call id', async () => {
    const called = await cli('call', 'text.reverse', '--config', config, '--args', '{"text":"abc"}', '--json', '--caller', 'agent-7');
    expect(called.code).toBe(0);
    const { callId } = JSON.parse(called.stdout) as { callId: string };
    const { code, stdout } = await cli('audit', '--config', config, '--call-id', callId, '--json');
    expect(code).toBe(0);
    const { audit } = JSON.parse(stdout) as { audit: Array<{ kind: string; tool: string; actor: string; callId: string; detail: { provider: string } }> };
    expect(audit).toHaveLength(1);
        // the actor is the local principal the CLI acts as, never the --caller it names
    expect(audit[0]).toMatchObject({ kind: 'call.ok', tool: 'text.reverse', actor: 'local', callId, detail: { provider: 'local' } });
    const traces = join(dir, '.toolcap', 'traces.jsonl');
    expect(existsSync(traces)).toBe(true);
    const spans = readFileSync(traces, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { name: string; attributes: Record<string, unknown> });
    const span = spans.find((s) => s.attributes['gen_ai.tool.call.id'] === callId);
    expect(span?.name).toBe('execute_tool text.reverse');
    expect(span?.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'toolcap.provider': 'local', 'toolcap.arg.text': 'abc', 'toolcap.tool.mode': 'read' });
  });

  it('pages with --after and filters by --tool, oldest first', async () => {
    for (const text of ['a', 'b', 'c']) expect((await cli('call', 'text.reverse', '--config', config, '--args', JSON.stringify({ text }))).code).toBe(0);
    expect((await cli('call', 'text.word_count', '--config', config, '--args', '{"text":"x y"}')).code).toBe(0);
    const all = JSON.parse((await cli('audit', '--config', config, '--json')).stdout) as { audit: Array<{ seq: number; tool: string }> };
    expect(all.audit.map((r) => r.tool)).toEqual(['text.reverse', 'text.reverse', 'text.reverse', 'text.word_count']);
    const seqs = all.audit.map((r) => r.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    const page = JSON.parse((await cli('audit', '--config', config, '--json', '--after', String(seqs[1]), '--limit', '1')).stdout) as { audit: Array<{ seq: number }> };
    expect(page.audit.map((r) => r.seq)).toEqual([seqs[2]]);
    const counted = JSON.parse((await cli('audit', '--config', config, '--json', '--tool', 'text.word_count')).stdout) as { audit: unknown[] };
    expect(counted.audit).toHaveLength(1);
    const human = await cli('audit', '--config', config);
    expect(human.stdout).toMatch(/call\.ok\s+text\.word_count/);
  });

  it.each([[['--limit', '0']], [['--after', 'x']], [['--limit', '-3']]])('%j is a usage error', async (flags) => {
    expect((await cli('audit', '--config', config, ...flags)).code).toBe(2);
  });
});

describe('a store that cannot be opened', () => {
  it.each([['call', ['call', 'text.reverse', '--args', '{"text":"a"}']], ['audit', ['audit']], ['approvals list', ['approvals', 'list']]])(
    '%s exits 2 naming the store, and runs nothing',
    async (_name, args) => {
      const dir = project();
      // the store path is a folder: SQLite cannot open it
      writeFileSync(join(dir, 'toolcap.config.yaml'), 'sources: [toolcap/]\nstore: { path: toolcap/ }\n');
      const { code, stdout, stderr } = await cli(...args, '--config', join(dir, 'toolcap.config.yaml'));
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/cannot open the store .*toolcap/);
    },
  );
});
