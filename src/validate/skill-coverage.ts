/**
 * Skills nobody can serve: a skill whose required capabilities (Xena
 * `requiredCapabilities`) are not all provided by some enabled tool of the
 * catalog (any persona's). The agents and jobs that use such a skill are
 * affected: they cannot do what the skill promises either.
 *
 * A capability ending in `.*` is a prefix (`tasks.*` is met by `tasks` or
 * `tasks.probe`), as job summaries read it. A disabled skill is not checked.
 * References to skills are resolved as everywhere: canonical name, source
 * id, or a pinned `id@1.2.0`.
 *
 * `validate` reports each as `UNSERVED_SKILL` (warning) at the skill's
 * required capabilities, naming the affected agents and jobs as related
 * places; `/summary` lists them ({@link unservedSkills}).
 * @module
 */
import { diagnostic, type Diagnostic, type Location } from '../model/diagnostics.js';
import type { Agent, Job, Skill, Tool } from '../model/schema.js';

/** A skill no enabled tool can serve, and who uses it. */
export interface UnservedSkill {
  /** The skill's canonical name. */
  skill: string;
  /** Its id in the source format, when it has one. */
  id?: string;
  /** Required capabilities no enabled tool provides, in the skill's order. */
  missing: string[];
  /** Agents that list the skill (their ids where they have one). */
  agents: string[];
  /** Jobs that require the skill. */
  jobs: string[];
}

/** What the check reads: the catalog's entries. */
export interface CoverageInput {
  tools: readonly Tool[];
  skills: readonly Skill[];
  agents: readonly Agent[];
  jobs: readonly Job[];
}

/**
 * Whether any of `provided` meets `wanted`: exactly, or for a `prefix.*`
 * the prefix itself or any capability under it (as job summaries read it).
 * @example capabilityMet('tasks.*', new Set(['tasks.probe'])) // true
 */
export function capabilityMet(wanted: string, provided: ReadonlySet<string>): boolean {
  if (!wanted.endsWith('.*')) return provided.has(wanted);
  const prefix = wanted.slice(0, -2);
  if (provided.has(prefix)) return true;
  for (const c of provided) if (c.startsWith(`${prefix}.`)) return true;
  return false;
}

/** Whether `ref` names this skill. */
function names(ref: string, skill: Skill): boolean {
  const plain = ref.replace(/@[^@]*$/, '');
  return [ref, plain].some((r) => r === skill.name || (skill.id !== undefined && r === skill.id));
}

const label = (entry: { name: string; id?: string }): string => entry.id ?? entry.name;

/**
 * Every skill some required capability of which no enabled tool provides,
 * in skill order, with the agents and jobs that use it.
 * @example unservedSkills(snapshot).map((s) => [s.skill, s.missing]) // [['skill.ops.page', ['pager.send']]]
 */
export function unservedSkills(input: CoverageInput): UnservedSkill[] {
  // no skills, nothing to serve: the tools' capabilities are not gathered
  if (input.skills.length === 0) return [];
  const provided = new Set(input.tools.filter((t) => t.enabled !== false).flatMap((t) => t.capabilities ?? []));
  const out: UnservedSkill[] = [];
  for (const skill of input.skills) {
    if (skill.enabled === false) continue;
    const missing = [...new Set(skill.capabilities ?? [])].filter((c) => !capabilityMet(c, provided));
    if (missing.length === 0) continue;
    out.push({
      skill: skill.name,
      ...(skill.id !== undefined ? { id: skill.id } : {}),
      missing,
      agents: input.agents.filter((a) => (a.skills ?? []).some((r) => names(r, skill))).map(label),
      jobs: input.jobs.filter((j) => (j.skills ?? []).some((r) => names(r, skill))).map(label),
    });
  }
  return out;
}

/** Where an entry's field stands in its source. */
export type FieldLocator = (path: string) => Location;

/** The locators of the entries a coverage diagnostic points at, by canonical name. */
export interface CoverageLocators {
  skill(name: string): FieldLocator | undefined;
  agent(name: string): FieldLocator | undefined;
  job(name: string): FieldLocator | undefined;
}

/**
 * `UNSERVED_SKILL` warnings: one per unserved skill, at its required
 * capabilities, with each affected agent and job (at its `skills`) as a
 * related place.
 */
export function lintSkillCoverage(input: CoverageInput, locate: CoverageLocators): Diagnostic[] {
  const byLabel = <T extends { name: string; id?: string }>(list: readonly T[]) => new Map(list.map((e) => [label(e), e.name]));
  const agents = byLabel(input.agents);
  const jobs = byLabel(input.jobs);
  return unservedSkills(input).map((u) => {
    const related: Array<Location & { message: string }> = [
      ...u.agents.map((a) => ({ ...(locate.agent(agents.get(a) ?? a)?.('skills') ?? {}), message: `Agent "${a}" uses the skill` })),
      ...u.jobs.map((j) => ({ ...(locate.job(jobs.get(j) ?? j)?.('skills') ?? {}), message: `Job "${j}" requires the skill` })),
    ];
    const users = [...u.agents.map((a) => `agent "${a}"`), ...u.jobs.map((j) => `job "${j}"`)];
    const missing = u.missing.map((c) => `"${c}"`).join(', ');
    return diagnostic(
      'UNSERVED_SKILL',
      `Skill "${u.id ?? u.skill}" requires ${missing}, which no enabled tool provides${users.length > 0 ? `; affected: ${users.join(', ')}` : ''}.`,
      {
        ...(locate.skill(u.skill)?.('capabilities') ?? {}),
        hint: 'Add or enable a tool with the capability, or drop it from the skill.',
        ...(related.length > 0 ? { related } : {}),
      },
    );
  });
}
