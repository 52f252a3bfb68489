/**
 * The catalog summary served at `GET /summary`, and the job summaries served
 * at `GET /jobs`: counts, per-persona tool counts, effect histograms, and for
 * every job what it needs and whether the personas allowed to schedule it
 * can actually run it.
 *
 * Rules for a job:
 *
 * - **References.** A skill or tool is named by its canonical name, by the id
 *   its own format uses (ATLAS `"ResearchBrief"` for the skill
 *   `research_brief`), or with a pinned version (`id@1.2.0`, Xena); the same
 *   resolution the build's reference check uses. A skill that resolves to
 *   nothing is `UNKNOWN_SKILL`; a tool (named by the job or by one of its
 *   skills) that no version of exists anywhere in the snapshot is
 *   `UNKNOWN_TOOL`.
 * - **Required tools** are the job's own tools plus every tool of its known
 *   skills, by canonical name, deduped and sorted. A required tool whose every
 *   version is disabled is `DISABLED_TOOL` (once, not per persona).
 * - **Required capabilities** are the job's capabilities plus those of its
 *   known skills. The `capabilities` list of a summary also adds the
 *   capabilities of the required tools that exist (every version of them),
 *   since running the job exercises them too.
 * - **Personas.** Each persona the job names is checked against its view
 *   `snapshot.toolsFor(persona)` (enabled tools only, its own versions
 *   shadowing shared ones). A job that names no persona may be scheduled by
 *   any persona, so it is checked against the **shared tools** alone (enabled
 *   tools with no `scope.personas`): what every persona is sure to see. Its
 *   problems carry `persona: null`.
 *   A view that lacks a required tool (that exists and is not disabled
 *   everywhere) gives `MISSING_TOOL`; a required capability no tool of the
 *   view provides gives `MISSING_CAPABILITY`. A capability ending in `.*`
 *   is a prefix (`tasks.*` is met by `tasks` or `tasks.probe`), as in
 *   `query/filters.ts`.
 * - **Requirements** (`requires`) are the most severe side effects, risk and
 *   mode over every version of the required tools that exist, and whether
 *   any of them needs approval (silence on approval reads as "required", as
 *   in `query/filters.ts`). With no such tool every field is `null`.
 * - A job is `compatible` exactly when it has no problem.
 *
 * Every result is a fresh plain object (no frozen snapshot arrays, no
 * `undefined` values): `JSON.parse(JSON.stringify(x))` deep-equals `x`.
 * @module
 */
import type { Job, Skill, Tool } from '../model/schema.js';
import { MODES, RISK_LEVELS, SIDE_EFFECTS, rank, type Mode, type RiskLevel, type SideEffect } from '../model/vocabulary.js';
import { unservedSkills, type UnservedSkill } from '../validate/skill-coverage.js';
import type { Snapshot } from './snapshot.js';

/**
 * One reason a job cannot run as declared. `persona` is the persona whose
 * view was checked, or `null` for the shared tools (a job naming no persona).
 */
export type JobProblem =
  | { code: 'UNKNOWN_SKILL'; skill: string; message: string }
  | { code: 'UNKNOWN_TOOL'; tool: string; message: string }
  | { code: 'DISABLED_TOOL'; tool: string; message: string }
  | { code: 'MISSING_TOOL'; persona: string | null; tool: string; message: string }
  | { code: 'MISSING_CAPABILITY'; persona: string | null; capability: string; message: string };

/** The problem codes, in the order problems of one job are listed. */
export type JobProblemCode = JobProblem['code'];

/** What running a job asks of the caller, over the required tools that exist; `null` when there is none. */
export interface JobRequirements {
  /** The most severe side effect of any required tool. */
  maxSideEffects: SideEffect | null;
  /** The highest risk of any required tool. */
  maxRisk: RiskLevel | null;
  /** `read` when every required tool reads; else the furthest mode in MODES order (`mixed` or `write`). */
  mode: Mode | null;
  /** Whether some required tool needs human approval per call. */
  approval: boolean | null;
}

/** One job and whether it can run. */
export interface JobSummary {
  name: string;
  title?: string;
  summary?: string;
  /** Personas allowed to schedule the job, as declared; empty means any persona. */
  personas: string[];
  /** Required skills, as declared (deduped). */
  skills: string[];
  /** Required tools: the job's own plus its skills', canonical names, deduped and sorted. */
  tools: string[];
  /** Capability requirements: job ∪ skills ∪ capabilities of the required tools that exist, deduped and sorted. */
  capabilities: string[];
  requires: JobRequirements;
  /** False exactly when `problems` is not empty. */
  compatible: boolean;
  problems: JobProblem[];
}

/** What the catalog holds, in numbers, plus every job's summary. */
export interface CatalogSummary {
  version: number;
  etag: string;
  builtAt: string;
  /** The persona a per-persona summary is for (its view of tools, the jobs it may schedule); absent: every persona. */
  persona?: string;
  counts: {
    /** Tool entries (merge keys), disabled ones and persona versions included. */
    tools: number;
    enabledTools: number;
    disabledTools: number;
    skills: number;
    agents: number;
    jobs: number;
    /** Personas some tool is scoped to. */
    personas: number;
    incompatibleJobs: number;
  };
  /** Every persona some tool is scoped to, sorted, with the size of its view. */
  personas: Array<{ name: string; tools: number }>;
  /**
   * Histograms over every tool entry (as `counts.tools`). Every value of the
   * vocabulary is a key, in vocabulary order; tools silent on the field are
   * counted under `unknown`, present only when non-zero.
   */
  tools: {
    byMode: Record<string, number>;
    bySideEffects: Record<string, number>;
    byRisk: Record<string, number>;
    /** Tool entries whose calls need approval (silence reads as required). */
    approvalRequired: number;
  };
  jobs: JobSummary[];
  /** Names of the jobs that are not compatible, in job order. */
  incompatibleJobs: string[];
  /** Skills some required capability of which no enabled tool provides, with the agents and jobs affected (validate/skill-coverage.ts). */
  unservedSkills: UnservedSkill[];
}

const isEnabled = (t: Tool): boolean => t.enabled !== false;
const needsApproval = (t: Tool): boolean => t.approval?.required ?? true;
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const sorted = (values: Iterable<string>): string[] => [...new Set(values)].sort(compare);
const unique = (values: readonly string[] | undefined): string[] => [...new Set(values ?? [])];
const quote = (persona: string | null): string => (persona === null ? 'the shared tools' : `persona "${persona}"`);

/** Does any of `provided` meet `wanted` (exact, or a `prefix.*` prefix)? */
function capabilityMet(wanted: string, provided: ReadonlySet<string>): boolean {
  if (!wanted.endsWith('.*')) return provided.has(wanted);
  const prefix = wanted.slice(0, -2);
  if (provided.has(prefix)) return true;
  for (const c of provided) if (c.startsWith(`${prefix}.`)) return true;
  return false;
}

/** The tool names and capabilities one view offers. */
interface View {
  tools: ReadonlySet<string>;
  capabilities: ReadonlySet<string>;
}

/**
 * Everything a set of jobs is checked against, computed once per call: name
 * resolution and each persona's view (built on first use, then reused).
 */
class Context {
  readonly #snapshot: Snapshot;
  readonly #skills = new Map<string, Skill>();
  readonly #toolNames = new Map<string, string>();
  readonly #views = new Map<string | null, View>();

  constructor(snapshot: Snapshot) {
    this.#snapshot = snapshot;
    // canonical names first, so an id never hides a name
    for (const s of snapshot.skills) if (!this.#skills.has(s.name)) this.#skills.set(s.name, s);
    for (const s of snapshot.skills) if (s.id !== undefined && !this.#skills.has(s.id)) this.#skills.set(s.id, s);
    for (const t of snapshot.tools) this.#toolNames.set(t.name, t.name);
    for (const t of snapshot.tools) if (t.id !== undefined && !this.#toolNames.has(t.id)) this.#toolNames.set(t.id, t.name);
  }

  skill(ref: string): Skill | undefined {
    return this.#skills.get(ref) ?? this.#skills.get(ref.replace(/@[^@]*$/, ''));
  }

  /** The canonical name of the tool `ref` names, or undefined when no version of it exists. */
  toolName(ref: string): string | undefined {
    return this.#toolNames.get(ref) ?? this.#toolNames.get(ref.replace(/@[^@]*$/, ''));
  }

  /** Every version of a tool (shared and persona-scoped, disabled too). */
  versions(name: string): readonly Tool[] {
    return this.#snapshot.byName.get(name) ?? [];
  }

  /** A persona's view, or with `null` the shared tools. */
  view(persona: string | null): View {
    let view = this.#views.get(persona);
    if (view === undefined) {
      const tools =
        this.#snapshot.callableTools(persona ?? undefined);
      view = { tools: new Set(tools.map((t) => t.name)), capabilities: new Set(tools.flatMap((t) => t.capabilities ?? [])) };
      this.#views.set(persona, view);
    }
    return view;
  }
}

function maxOf<T extends string>(order: readonly T[], values: ReadonlyArray<T | undefined>): T | null {
  let best: T | null = null;
  for (const v of values) if (v !== undefined && rank(order, v) > rank(order, best ?? undefined)) best = v;
  return best;
}

function requirements(tools: readonly Tool[]): JobRequirements {
  if (tools.length === 0) return { maxSideEffects: null, maxRisk: null, mode: null, approval: null };
  return {
    maxSideEffects: maxOf(SIDE_EFFECTS, tools.map((t) => t.effects?.sideEffects)),
    maxRisk: maxOf(RISK_LEVELS, tools.map((t) => t.effects?.risk)),
    mode: maxOf(MODES, tools.map((t) => t.effects?.mode)),
    approval: tools.some(needsApproval),
  };
}

function summarizeJob(job: Job, ctx: Context): JobSummary {
  const problems: JobProblem[] = [];
  const skills = unique(job.skills);
  const wantedCapabilities = new Set(job.capabilities ?? []);
  const toolRefs: Array<{ ref: string; from?: string }> = (job.tools ?? []).map((ref) => ({ ref }));

  for (const ref of skills) {
    const skill = ctx.skill(ref);
    if (skill === undefined) {
      problems.push({ code: 'UNKNOWN_SKILL', skill: ref, message: `Job "${job.name}" requires skill "${ref}", which the catalog does not define.` });
      continue;
    }
    for (const c of skill.capabilities ?? []) wantedCapabilities.add(c);
    for (const t of skill.tools ?? []) toolRefs.push({ ref: t, from: skill.name });
  }

  const required = new Set<string>();
  const unknown = new Set<string>();
  for (const { ref, from } of toolRefs) {
    const name = ctx.toolName(ref);
    if (name !== undefined) required.add(name);
    else if (!unknown.has(ref)) {
      unknown.add(ref);
      const via = from === undefined ? '' : ` (through skill "${from}")`;
      problems.push({ code: 'UNKNOWN_TOOL', tool: ref, message: `Job "${job.name}" requires tool "${ref}"${via}, which no manifest defines.` });
    }
  }
  const tools = sorted(required);
  const versions = tools.flatMap((name) => ctx.versions(name));

  const disabled = new Set<string>();
  for (const name of tools) {
    if (ctx.versions(name).some(isEnabled)) continue;
    disabled.add(name);
    problems.push({ code: 'DISABLED_TOOL', tool: name, message: `Job "${job.name}" requires tool "${name}", which is disabled.` });
  }

  const personas = [...(job.personas ?? [])];
  const checked: Array<string | null> = personas.length === 0 ? [null] : unique(personas);
  const capabilityList = sorted(wantedCapabilities);
  for (const persona of checked) {
    const view = ctx.view(persona);
    for (const tool of tools) {
      if (disabled.has(tool) || view.tools.has(tool)) continue;
      problems.push({ code: 'MISSING_TOOL', persona, tool, message: `Job "${job.name}" requires tool "${tool}", which ${quote(persona)} does not have.` });
    }
    for (const capability of capabilityList) {
      if (capabilityMet(capability, view.capabilities)) continue;
      problems.push({
        code: 'MISSING_CAPABILITY',
        persona,
        capability,
        message: `Job "${job.name}" requires capability "${capability}", which no tool of ${quote(persona)} provides.`,
      });
    }
  }

  return {
    name: job.name,
    ...(job.title === undefined ? {} : { title: job.title }),
    ...(job.summary === undefined ? {} : { summary: job.summary }),
    personas,
    skills,
    tools,
    capabilities: sorted([...wantedCapabilities, ...versions.flatMap((t) => t.capabilities ?? [])]),
    requires: requirements(versions),
    compatible: problems.length === 0,
    problems,
  };
}

/** Whether `persona` may schedule `job`: the job names no persona, or names it. */
const schedulable = (job: Job, persona: string): boolean => (job.personas?.length ?? 0) === 0 || job.personas!.includes(persona);

/** The jobs a persona may schedule (every job without a persona). */
const jobsFor = (snapshot: Snapshot, persona?: string): readonly Job[] => (persona === undefined ? snapshot.jobs : snapshot.jobs.filter((j) => schedulable(j, persona)));

function jobsOf(snapshot: Snapshot, ctx: Context, persona?: string): JobSummary[] {
  return jobsFor(snapshot, persona).map((job) => summarizeJob(job, ctx));
}

/**
 * Summaries of the snapshot's jobs, in catalog order. With a persona: only
 * the jobs that persona may schedule (those naming no persona, or naming it);
 * each summary is still checked against every persona the job names.
 * @example
 * summarizeJobs(snapshot, 'Atlas').filter((j) => !j.compatible).map((j) => j.problems);
 */
export function summarizeJobs(snapshot: Snapshot, persona?: string): JobSummary[] {
  return jobsOf(snapshot, new Context(snapshot), persona);
}

function histogram(order: readonly string[], values: ReadonlyArray<string | undefined>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of order) out[key] = 0;
  for (const v of values) {
    const key = v === undefined ? 'unknown' : v;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

/**
 * The catalog summary: counts, persona views, effect histograms and every
 * job's summary, with the names of the jobs that cannot run.
 * @example
 * const { counts, incompatibleJobs } = summarizeCatalog(snapshot);
 */
export function summarizeCatalog(snapshot: Snapshot, persona?: string): CatalogSummary {
  const ctx = new Context(snapshot);
  const jobs = jobsOf(snapshot, ctx, persona);
  // a persona's summary counts its view (its own tools and the shared ones); the jobs it may schedule
  const tools = persona === undefined ? snapshot.tools : snapshot.toolsFor(persona);
  const incompatibleJobs = jobs.filter((j) => !j.compatible).map((j) => j.name);
  const enabledTools = tools.filter(isEnabled).length;
  return {
    version: snapshot.version,
    etag: snapshot.etag,
    builtAt: snapshot.builtAt,
    ...(persona === undefined ? {} : { persona }),
    counts: {
      tools: tools.length,
      enabledTools,
      disabledTools: tools.length - enabledTools,
      skills: snapshot.skills.length,
      agents: snapshot.agents.length,
      jobs: jobs.length,
      personas: persona === undefined ? snapshot.personas.length : 1,
      incompatibleJobs: incompatibleJobs.length,
    },
    personas: (persona === undefined ? snapshot.personas : [persona]).map((name) => ({ name, tools: snapshot.toolsFor(name).length })),
    tools: {
      byMode: histogram(MODES, tools.map((t) => t.effects?.mode)),
      bySideEffects: histogram(SIDE_EFFECTS, tools.map((t) => t.effects?.sideEffects)),
      byRisk: histogram(RISK_LEVELS, tools.map((t) => t.effects?.risk)),
      approvalRequired: tools.filter(needsApproval).length,
    },
    jobs,
    incompatibleJobs,
    // a persona's: judged by its tools, naming its jobs only (another persona's tools and jobs are not its business)
    unservedSkills: unservedSkills(persona === undefined ? snapshot : { tools, skills: snapshot.skills, agents: snapshot.agents, jobs: jobsFor(snapshot, persona) }),
  };
}
