/**
 * An agent's view (query/agent-view.ts) over the bundled Xena example and the
 * agents fixture: which tools each agent is offered, which rule refuses the
 * others, and that /tools and search answer the same view.
 */
import { describe, expect, it } from 'vitest';
import { agentView, findAgent } from '../../src/query/agent-view.js';
import { listTools, searchTools } from '../../src/query/views.js';
import { buildCatalog } from '../../src/registry/catalog.js';
import { createSnapshot } from '../../src/registry/snapshot.js';

const snap = (paths: string[]) => createSnapshot(buildCatalog(paths), { version: 1, builtAt: '2026-01-01T00:00:00.000Z' });
const EXAMPLE = snap(['examples/manifests/xena']);
const FIXTURE = snap(['test/fixtures/xena/agents']);

/** The names /tools lists for an agent (no persona: the operator's view, narrowed). */
function listed(snapshot: typeof FIXTURE, agent: string, personas?: string[]): string[] {
  const view = agentView(snapshot, agent);
  if (!view) throw new Error(`no agent ${agent}`);
  return listTools(snapshot, personas ? { personas } : {}, undefined, view).tools.map((t) => t.name);
}

describe('an agent view over the bundled Xena example', () => {
  it.each([
    // maxRiskLevel medium, determinism not required: every listed tool (the email reply and the webhook are medium),
    // and the support queue, which provides tasks.probe, a capability its skills require
    ['agent.operator.primary', ['tool.communication.email.reply', 'tool.linear.issue.reader', 'tool.manus.webhook.signal', 'tool.tasks.example.source', 'tool.tasks.linear.assigned', 'tool.tasks.support.queue']],
    // maxRiskLevel low and requireDeterministicTools: the email reply (medium, not deterministic) and the webhook (medium) go
    ['agent.operator.readonly', ['tool.linear.issue.reader', 'tool.tasks.example.source', 'tool.tasks.linear.assigned']],
  ])('%s is offered %j', (agent, tools) => {
    expect(listed(EXAMPLE, agent)).toEqual(tools);
  });

  it.each([
    ['agent.operator.readonly', 'tool.communication.email.reply', 'maxRiskLevel'],
    ['agent.operator.readonly', 'tool.manus.webhook.signal', 'maxRiskLevel'],
    ['agent.operator.readonly', 'tool.tasks.example.source', undefined],
    ['agent.operator.primary', 'tool.communication.email.reply', undefined],
  ])('%s and %s: refused by %s', (agent, name, constraint) => {
    const tool = EXAMPLE.tool(name);
    expect(tool).toBeDefined();
    expect(agentView(EXAMPLE, agent)?.refusal(tool!)?.constraint).toBe(constraint);
  });
});

describe('an agent view over the agents fixture', () => {
  it.each([
    // maxRiskLevel low: the high-risk deploy and the medium email reply are left out
    ['agent.low', ['notes.lookup', 'tool.tasks.source']],
    // requireDeterministicTools: email says false, notes.lookup is silent (read as not deterministic: fail closed)
    ['agent.deterministic', ['tool.deploy.prod', 'tool.tasks.source']],
    // toolIds [email] plus its skills: skill.ops.status names tool.tasks.source; skill.ops.page needs pager.send, only a disabled tool has it
    ['agent.skilled', ['tool.email.reply', 'tool.tasks.source']],
    // lists nothing: gets nothing
    ['agent.empty', []],
    // disabled: gets nothing
    ['agent.off', []],
  ])('%s is offered %j', (agent, tools) => {
    expect(listed(FIXTURE, agent)).toEqual(tools);
  });

  it.each([
    ['agent.low', 'tool.deploy.prod', 'maxRiskLevel'],
    ['agent.low', 'tool.email.reply', 'maxRiskLevel'],
    ['agent.deterministic', 'tool.email.reply', 'requireDeterministicTools'],
    ['agent.deterministic', 'notes.lookup', 'requireDeterministicTools'],
    ['agent.skilled', 'tool.deploy.prod', 'toolIds'],
    ['agent.skilled', 'notes.lookup', 'toolIds'],
    ['agent.empty', 'tool.tasks.source', 'toolIds'],
    ['agent.off', 'tool.tasks.source', 'enabled'],
    ['agent.low', 'notes.lookup', undefined],
  ])('%s and %s: refused by %s', (agent, name, constraint) => {
    const tool = FIXTURE.tool(name);
    expect(tool).toBeDefined();
    expect(agentView(FIXTURE, agent)?.refusal(tool!)?.constraint).toBe(constraint);
  });

  it('an agent bound to a persona narrows that persona only, and refuses any other', () => {
    expect(listed(FIXTURE, 'agent.ops', ['ops'])).toEqual(['notes.lookup', 'ops.restart']);
    const view = agentView(FIXTURE, 'agent.ops')!;
    expect(view.personaRefusal('ops')).toBeUndefined();
    expect(view.personaRefusal(undefined)?.constraint).toBe('persona');
    expect(view.personaRefusal('intern')?.constraint).toBe('persona');
  });

  it('finds agents by id, canonical name and pinned id; an unknown one is undefined, never a view', () => {
    expect(findAgent(FIXTURE, 'agent.low')?.name).toBe('agent.low');
    expect(findAgent(FIXTURE, 'agent.low@1.0.0')?.name).toBe('agent.low');
    expect(agentView(FIXTURE, 'agent.nobody')).toBeUndefined();
    expect(agentView(FIXTURE, '')).toBeUndefined();
  });

  it('search ranks within the agent view only', () => {
    const all = searchTools(FIXTURE, { query: 'deploy the service to production', limit: 10 });
    expect(all.candidates.map((c) => c.name)).toContain('tool.deploy.prod');
    const low = searchTools(FIXTURE, { query: 'deploy the service to production', limit: 10, agent: agentView(FIXTURE, 'agent.low')! });
    expect(low.candidates.map((c) => c.name)).not.toContain('tool.deploy.prod');
    for (const c of low.candidates) expect(['notes.lookup', 'tool.tasks.source']).toContain(c.name);
  });
});
