/**
 * `toolcap call --agent` and `toolcap validate` over the agents fixture,
 * in-process, with the store in a temp folder: a call outside the agent's
 * view fails (exit 1) naming the constraint; a skill no tool serves is a
 * warning, not a failure.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

let root: string;
let config: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'toolcap-cli-agents-'));
  config = join(root, 'toolcap.config.yaml');
  writeFileSync(config, `sources: [${JSON.stringify(resolve('test/fixtures/xena/agents'))}]\nstore: { path: .toolcap/toolcap.db }\n`);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('toolcap call --agent', () => {
  it.each([
    ['agent.low', 0, undefined],
    ['agent.deterministic', 1, 'requireDeterministicTools'],
    ['agent.empty', 1, 'toolIds'],
  ])('notes.lookup for %s: exit %d %s', async (agent, code, constraint) => {
    const r = await cli('call', 'notes.lookup', '--config', config, '--agent', agent, '--args', '{"key":"k"}', '--json');
    expect(r.code).toBe(code);
    const out = JSON.parse(r.stdout);
    if (constraint === undefined) expect(out).toMatchObject({ status: 'ok', result: { echoed: { key: 'k' } } });
    else expect(out).toMatchObject({ status: 'error', code: 'AGENT_FORBIDDEN', agent, constraint });
  });

  it('an unknown agent names the agents there are', async () => {
    const r = await cli('call', 'notes.lookup', '--config', config, '--agent', 'agent.nobody', '--args', '{"key":"k"}');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('UNKNOWN_AGENT');
    expect(r.stderr).toContain('agents there are: agent.low');
  });
});

describe('toolcap validate', () => {
  it('warns of the unserved skill at its line, with the agent and job it affects, and passes', async () => {
    const r = await cli('validate', 'test/fixtures/xena/agents');
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/skills\.json:39:7: warning UNSERVED_SKILL: Skill "skill\.ops\.page" requires "pager\.send"/);
    expect(r.stdout + r.stderr).toContain('agents.json:63:7');
  });
});
