/**
 * Skills no enabled tool can serve: UNSERVED_SKILL from the build (what
 * `toolcap validate` prints), located at the skill's requiredCapabilities,
 * with the agents and jobs that use it; and the same list in /summary.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCatalog } from '../../src/registry/catalog.js';
import { createSnapshot } from '../../src/registry/snapshot.js';
import { summarizeCatalog } from '../../src/registry/summary.js';
import { unservedSkills } from '../../src/validate/skill-coverage.js';
import { cleanFolders, folder } from '../server/helpers.js';

afterAll(cleanFolders);

const FIXTURE = 'test/fixtures/xena/agents';
const unserved = (paths: string[]) => buildCatalog(paths).diagnostics.filter((d) => d.code === 'UNSERVED_SKILL');

describe('UNSERVED_SKILL', () => {
  it('is a warning at the skill, naming the missing capability, with the agent and the job that use it', () => {
    const found = unserved([FIXTURE]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      severity: 'warning',
      file: join(FIXTURE, 'config/registry/skills.json'),
      pointer: '/skills/1/requiredCapabilities',
      line: 39,
    });
    expect(found[0]?.message).toContain('"pager.send"');
    expect(found[0]?.related).toMatchObject([
      { file: join(FIXTURE, 'config/registry/agents.json'), pointer: '/agents/2/skillIds' },
      { file: join(FIXTURE, 'extra.yaml'), line: 26 },
    ]);
  });

  it.each([
    ['the bundled Xena example', ['examples/manifests/xena'], []],
    ['the agents fixture', [FIXTURE], ['skill.ops.page']],
  ])('%s: unserved skills %j', (_what, paths, skills) => {
    expect(unserved(paths).length).toBe(skills.length);
    const summary = summarizeCatalog(createSnapshot(buildCatalog(paths), { version: 1, builtAt: '2026-01-01T00:00:00.000Z' }));
    expect(summary.unservedSkills.map((s) => s.skill)).toEqual(skills);
  });

  it('the summary names the missing capabilities and who is affected', () => {
    const summary = summarizeCatalog(createSnapshot(buildCatalog([FIXTURE]), { version: 1, builtAt: '2026-01-01T00:00:00.000Z' }));
    expect(summary.unservedSkills).toEqual([{ skill: 'skill.ops.page', id: 'skill.ops.page', missing: ['pager.send'], agents: ['agent.skilled'], jobs: ['page_oncall'] }]);
  });

  it('disabling the only tool with a capability makes the example skills that need it unserved', () => {
    const dir = folder('toolcap-coverage-');
    cpSync('examples/manifests/xena', dir, { recursive: true });
    const file = join(dir, 'config/registry/tools.json');
    const tools = JSON.parse(readFileSync(file, 'utf8')) as { tools: Array<{ id: string; enabled: boolean }> };
    for (const t of tools.tools) if (t.id === 'tool.manus.webhook.signal') t.enabled = false;
    writeFileSync(file, JSON.stringify(tools, null, 2));
    const found = unserved([dir]);
    expect(found.map((d) => d.pointer)).toEqual(['/skills/1/requiredCapabilities']);
    expect(found[0]?.message).toContain('"workflow.signal.receive"');
    expect(found[0]?.message).toContain('agent "agent.operator.primary"');
  });

  it.each([
    // a prefix is met by any capability under it
    [['tasks.*'], ['tasks.probe'], []],
    [['tasks.*'], ['task.probe'], ['tasks.*']],
    [['a.b', 'c.d'], ['a.b'], ['c.d']],
  ])('required %j, provided %j: missing %j', (required, provided, missing) => {
    const result = unservedSkills({
      tools: [{ name: 't', capabilities: provided }],
      skills: [{ name: 's', capabilities: required }],
      agents: [],
      jobs: [],
    });
    expect(result.flatMap((r) => r.missing)).toEqual(missing);
  });
});
