import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MODES, RISK_LEVELS, SIDE_EFFECTS } from '../../src/model/vocabulary.js';
import { buildCatalog } from '../../src/registry/catalog.js';
import { createSnapshot } from '../../src/registry/snapshot.js';
import { summarizeCatalog, summarizeJobs, type JobProblem, type JobSummary } from '../../src/registry/summary.js';

const snap = (paths: string[]) => createSnapshot(buildCatalog(paths), { version: 1, builtAt: '2026-01-01T00:00:00.000Z' });

const tmp = mkdtempSync(join(tmpdir(), 'toolcap-summary-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  const path = join(tmp, name);
  writeFileSync(path, text);
  return path;
};

const MANIFEST = `toolcap: 1
tools:
  - name: notes.read
    description: Read notes
    effects: { mode: read, sideEffects: filesystem, reversible: full, risk: low }
    approval: { required: false }
    capabilities: [notes.read, notes.search]
  - name: tasks.list
    description: List tasks
    effects: { mode: read, sideEffects: read_external_service, reversible: full, risk: medium }
    approval: { required: false }
    capabilities: [tasks.list]
  - name: mail.send
    scope: { personas: [Ops] }
    description: Send mail
    effects: { mode: write, sideEffects: write, reversible: none, risk: high }
    approval: { required: true }
    capabilities: [mail.send]
  - name: old.tool
    enabled: false
    description: Retired
    effects: { mode: read, sideEffects: none, reversible: full, risk: low }
    approval: { required: false }
skills:
  - name: triage
    tools: [tasks.list]
    capabilities: [tasks.*]
  - name: notify
    tools: [mail.send]
    capabilities: [mail.send]
jobs:
  - name: digest
    title: Daily digest
    summary: Notes and tasks of the day.
    personas: [Ops]
    skills: [triage]
    tools: [notes.read]
    capabilities: [notes.*]
  - name: announce
    personas: [Ops, Sales]
    skills: [notify]
  - name: ghost_skill
    personas: [Ops]
    skills: [nope]
  - name: ghost_tool
    personas: [Ops]
    tools: [no.such]
  - name: legacy
    personas: [Ops]
    tools: [old.tool]
  - name: anyone
    tools: [notes.read]
    capabilities: [tasks.*, notes]
  - name: anyone_mail
    tools: [mail.send]
  - name: billing
    personas: [Ops]
    capabilities: [billing.*, tasks]
`;

const s = snap([write('catalog.yaml', MANIFEST)]);
const jobs = summarizeJobs(s);
const job = (name: string): JobSummary => {
  const found = jobs.find((j) => j.name === name);
  if (!found) throw new Error(`no job ${name}`);
  return found;
};
/** A problem without its message (Omit over each member of the union). */
type Bare<P = JobProblem> = P extends unknown ? Omit<P, 'message'> : never;
const codes = (j: JobSummary): Bare[] => j.problems.map(({ message: _m, ...rest }) => rest);

describe('the examples catalog summary', () => {
  const ex = snap(['examples/manifests', 'examples/overrides']);
  const summary = summarizeCatalog(ex);

  it('counts what the snapshot holds', () => {
    const enabled = ex.tools.filter((t) => t.enabled !== false).length;
    const incompatible = summary.jobs.filter((j) => !j.compatible).map((j) => j.name);
    expect(summary.counts).toEqual({
      tools: ex.tools.length,
      enabledTools: enabled,
      disabledTools: ex.tools.length - enabled,
      skills: ex.skills.length,
      agents: ex.agents.length,
      jobs: ex.jobs.length,
      personas: ex.personas.length,
      incompatibleJobs: incompatible.length,
    });
    expect(summary.incompatibleJobs).toEqual(incompatible);
    expect(summary.counts.disabledTools).toBeGreaterThan(0);
    expect(summary.jobs.map((j) => j.name)).toEqual(ex.jobs.map((j) => j.name));
    expect({ version: summary.version, etag: summary.etag, builtAt: summary.builtAt }).toEqual({ version: ex.version, etag: ex.etag, builtAt: ex.builtAt });
  });

  it('gives each persona the size of its view', () => {
    expect(summary.personas).toEqual(ex.personas.map((name) => ({ name, tools: ex.toolsFor(name).length })));
    expect(summary.personas.length).toBeGreaterThan(0);
  });

  it.each([
    { field: 'byMode' as const, order: MODES, of: (t: (typeof ex.tools)[number]) => t.effects?.mode },
    { field: 'bySideEffects' as const, order: SIDE_EFFECTS, of: (t: (typeof ex.tools)[number]) => t.effects?.sideEffects },
    { field: 'byRisk' as const, order: RISK_LEVELS, of: (t: (typeof ex.tools)[number]) => t.effects?.risk },
  ])('$field has every vocabulary key in order and counts every tool', ({ field, order, of }) => {
    const histogram = summary.tools[field];
    expect(Object.keys(histogram).slice(0, order.length)).toEqual([...order]);
    for (const key of order) expect(histogram[key]).toBe(ex.tools.filter((t) => of(t) === key).length);
    expect(Object.values(histogram).reduce((a, b) => a + b, 0)).toBe(ex.tools.length);
  });

  it('counts tools that need approval', () => {
    expect(summary.tools.approvalRequired).toBe(ex.tools.filter((t) => t.approval?.required ?? true).length);
  });

  it('resolves a skill named by its source id (ATLAS "ResearchBrief") and finds the job compatible', () => {
    const morning = summary.jobs.find((j) => j.name === 'morning_briefing');
    expect(morning?.skills).toEqual(['ResearchBrief']);
    expect(morning?.problems).toEqual([]);
    expect(morning?.compatible).toBe(true);
    expect(morning?.tools).toEqual(['calendar_list_events', 'google_search', 'webpage_fetch']);
    expect(morning?.capabilities).toEqual(expect.arrayContaining(['web.search', 'web.content.fetch', 'calendar.event.list']));
  });

  it('round-trips through JSON unchanged', () => {
    expect(JSON.parse(JSON.stringify(summary))).toStrictEqual(summary);
    expect(JSON.parse(JSON.stringify(summarizeJobs(ex, 'Atlas')))).toStrictEqual(summarizeJobs(ex, 'Atlas'));
  });
});

describe('job summaries', () => {
  it('summarizes a compatible job with derived tools, capabilities and requirements', () => {
    expect(job('digest')).toEqual({
      name: 'digest',
      title: 'Daily digest',
      summary: 'Notes and tasks of the day.',
      personas: ['Ops'],
      skills: ['triage'],
      tools: ['notes.read', 'tasks.list'],
      // job (notes.*) ∪ skill (tasks.*) ∪ tools (notes.read, notes.search, tasks.list)
      capabilities: ['notes.*', 'notes.read', 'notes.search', 'tasks.*', 'tasks.list'],
      requires: { maxSideEffects: 'filesystem', maxRisk: 'medium', mode: 'read', approval: false },
      compatible: true,
      problems: [],
    });
  });

  it('derives the requirements of a writing job from its skills’ tools', () => {
    expect(job('announce').tools).toEqual(['mail.send']);
    expect(job('announce').capabilities).toEqual(['mail.send']);
    expect(job('announce').requires).toEqual({ maxSideEffects: 'write', maxRisk: 'high', mode: 'write', approval: true });
  });

  const problemCases: Array<{ name: string; problems: Bare[] }> = [
    {
      name: 'announce',
      problems: [
        { code: 'MISSING_TOOL', persona: 'Sales', tool: 'mail.send' },
        { code: 'MISSING_CAPABILITY', persona: 'Sales', capability: 'mail.send' },
      ],
    },
    { name: 'ghost_skill', problems: [{ code: 'UNKNOWN_SKILL', skill: 'nope' }] },
    { name: 'ghost_tool', problems: [{ code: 'UNKNOWN_TOOL', tool: 'no.such' }] },
    { name: 'legacy', problems: [{ code: 'DISABLED_TOOL', tool: 'old.tool' }] },
    { name: 'anyone_mail', problems: [{ code: 'MISSING_TOOL', persona: null, tool: 'mail.send' }] },
    { name: 'billing', problems: [{ code: 'MISSING_CAPABILITY', persona: 'Ops', capability: 'billing.*' }, { code: 'MISSING_CAPABILITY', persona: 'Ops', capability: 'tasks' }] },
    { name: 'anyone', problems: [{ code: 'MISSING_CAPABILITY', persona: null, capability: 'notes' }] },
  ];
  it.each(problemCases)('$name has the expected problems and is incompatible', ({ name, problems }) => {
    const j = job(name);
    expect(codes(j)).toEqual(problems);
    expect(j.compatible).toBe(false);
    for (const p of j.problems) expect(p.message).toContain(`"${name}"`);
  });

  it('meets a prefix capability (tasks.*) through the shared tools for a job naming no persona', () => {
    // "anyone" needs tasks.* (met by tasks.list) and exactly "notes" (not met: notes.read is narrower)
    expect(codes(job('anyone')).map((p) => ('capability' in p ? p.capability : ''))).toEqual(['notes']);
    expect(codes(job('digest'))).toEqual([]);
  });

  it('lists every incompatible job in the catalog summary', () => {
    const summary = summarizeCatalog(s);
    expect(summary.incompatibleJobs).toEqual(['announce', 'ghost_skill', 'ghost_tool', 'legacy', 'anyone', 'anyone_mail', 'billing']);
    expect(summary.counts.incompatibleJobs).toBe(7);
    expect(summary.counts).toMatchObject({ tools: 4, enabledTools: 3, disabledTools: 1, personas: 1, jobs: 8, skills: 2 });
    expect(summary.personas).toEqual([{ name: 'Ops', tools: 3 }]);
  });

  it("a persona's summary judges the skills by that persona's tools and names only the jobs it may schedule", () => {
    // notify needs mail.send, which only Ops's own tool provides: served for Ops, not for Sales
    expect(summarizeCatalog(s, 'Ops').unservedSkills).toEqual([]);
    expect(summarizeCatalog(s, 'Sales').unservedSkills).toEqual([{ skill: 'notify', missing: ['mail.send'], agents: [], jobs: ['announce'] }]);
    // a view that schedules no job using it: the skill, without another persona's job names
    expect(summarizeCatalog(s, 'Nobody').unservedSkills).toEqual([{ skill: 'notify', missing: ['mail.send'], agents: [], jobs: [] }]);
    // the catalog-wide summary: every tool counts
    expect(summarizeCatalog(s).unservedSkills).toEqual([]);
  });

  it('gives null requirements when no required tool exists', () => {
    expect(job('ghost_tool').requires).toEqual({ maxSideEffects: null, maxRisk: null, mode: null, approval: null });
    expect(job('ghost_tool').tools).toEqual([]);
  });

  it.each([
    { persona: undefined, names: ['digest', 'announce', 'ghost_skill', 'ghost_tool', 'legacy', 'anyone', 'anyone_mail', 'billing'] },
    { persona: 'Ops', names: ['digest', 'announce', 'ghost_skill', 'ghost_tool', 'legacy', 'anyone', 'anyone_mail', 'billing'] },
    { persona: 'Sales', names: ['announce', 'anyone', 'anyone_mail'] },
    { persona: 'Nobody', names: ['anyone', 'anyone_mail'] },
  ])('summarizeJobs(snapshot, $persona) keeps the jobs that persona may schedule', ({ persona, names }) => {
    const list = summarizeJobs(s, persona);
    expect(list.map((j) => j.name)).toEqual(names);
    // the summary of a job does not depend on the persona filter
    for (const j of list) expect(j).toEqual(job(j.name));
  });

  it('round-trips through JSON unchanged', () => {
    const summary = summarizeCatalog(s);
    expect(JSON.parse(JSON.stringify(summary))).toStrictEqual(summary);
    expect(JSON.parse(JSON.stringify(jobs))).toStrictEqual(jobs);
  });
});
