/**
 * ATLAS jobs (`jobs.json`) and skills (`skills.json`), in and out. Their
 * names are PascalCase ("DailyBriefing"); the canonical name is a lowercase
 * form of it, listed in `derived`, and the source spelling is kept as `id`.
 * @module
 */
import { compactRequired } from '../../model/objects.js';
import type { Job, Skill } from '../../model/schema.js';
import type { ObjectReader } from '../../source/reader.js';
import { canonicalName, readName } from '../names.js';
import { keep, keepRest, mirrorOf, nonEmpty, overlay, type Mirror } from './mirror.js';

/**
 * Mirror key for the persona whose folder held the entry. Jobs and skills
 * have no canonical `scope`, and export needs the owner to pick the file;
 * the `$` keeps it apart from any ATLAS field.
 */
const OWNER_KEY = '$persona';

const HOMELESS_JOB_FIELDS = ['extends', 'task_graph', 'recurrence', 'acceptance_criteria', 'escalation_policy', 'accepts_external_requests'];
const HOMELESS_SKILL_FIELDS = ['instruction_prompt', 'safety_notes', 'category'];

interface Naming {
  name: string;
  id?: string;
  derived?: string[];
}

/** Canonical name, source id and the `derived` marker for a source name. */
function naming(source: string): Naming {
  const name = canonicalName(source);
  return name === source ? { name } : { name, id: source, derived: ['name'] };
}

function finish<T extends { extensions?: Record<string, Record<string, unknown>> }>(entry: T, mirror: Mirror, persona: string | undefined): T {
  if (persona !== undefined) mirror[OWNER_KEY] = persona;
  const extension = nonEmpty(mirror);
  if (extension) entry.extensions = { atlas: extension };
  return entry;
}

/** One `jobs.json` entry; undefined when it has no usable name (reported). */
export function importJob(reader: ObjectReader, persona: string | undefined): Job | undefined {
  const source = readName(reader, 'job');
  if (source === undefined) return undefined;
  const mirror: Mirror = {};
  const job = compactRequired<Job>({
    ...naming(source),
    summary: reader.string('summary'),
    description: reader.string('description'),
    personas: reader.strings('personas'),
    skills: reader.strings('required_skills'),
    tools: reader.strings('required_tools'),
  });
  keep(reader, HOMELESS_JOB_FIELDS, mirror);
  keepRest(reader, mirror, `job "${source}"`);
  return finish(job, mirror, persona);
}

/**
 * One `skills.json` entry. ATLAS skills have a `summary` and no description,
 * so `summary` is the canonical `description` (a source `description`, if
 * any, stays in the mirror).
 */
export function importSkill(reader: ObjectReader, persona: string | undefined): Skill | undefined {
  const source = readName(reader, 'skill');
  if (source === undefined) return undefined;
  const mirror: Mirror = {};
  keep(reader, ['description'], mirror);
  const skill = compactRequired<Skill>({
    ...naming(source),
    version: reader.string('version'),
    description: reader.string('summary'),
    tools: reader.strings('required_tools'),
    capabilities: reader.strings('required_capabilities'),
    tags: reader.strings('capability_tags'),
  });
  keep(reader, HOMELESS_SKILL_FIELDS, mirror);
  keepRest(reader, mirror, `skill "${source}"`);
  return finish(skill, mirror, persona);
}

/** The persona folder an entry came from, if any. */
export function ownerOf(entry: Job | Skill): string | undefined {
  const owner = mirrorOf(entry)[OWNER_KEY];
  return typeof owner === 'string' ? owner : undefined;
}

/** The source spelling of a job's or skill's name. */
function sourceName(entry: Job | Skill): string {
  return entry.id ?? entry.name;
}

function withoutOwner(entry: Job | Skill): Mirror {
  const { [OWNER_KEY]: _owner, ...rest } = mirrorOf(entry);
  return rest;
}

/** A job as a `jobs.json` entry. */
export function exportJob(job: Job): Record<string, unknown> {
  const entry = compactRequired<Record<string, unknown>>({
    name: sourceName(job),
    summary: job.summary,
    description: job.description,
    personas: job.personas,
    required_skills: job.skills,
    required_tools: job.tools,
  });
  return overlay(entry, withoutOwner(job)) as Record<string, unknown>;
}

/** A skill as a `skills.json` entry. */
export function exportSkill(skill: Skill): Record<string, unknown> {
  const entry = compactRequired<Record<string, unknown>>({
    name: sourceName(skill),
    version: skill.version,
    summary: skill.description,
    required_tools: skill.tools,
    required_capabilities: skill.capabilities,
    capability_tags: skill.tags,
  });
  return overlay(entry, withoutOwner(skill)) as Record<string, unknown>;
}
