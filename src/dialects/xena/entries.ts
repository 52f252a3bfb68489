/**
 * Xena skills (`config/registry/skills.json`) and agents
 * (`config/registry/agents.json`) to canonical skills and agents and back.
 * Xena-only fields (intent types, resources, guardrails, output contracts,
 * weights) have no canonical home: they are checked, then kept in
 * `extensions.xena`. An agent's `constraints` are canonical (toolcap
 * enforces them); unknown constraint fields are kept.
 * @module
 */
import { compact, compactRequired } from '../../model/objects.js';
import type { Agent, AgentConstraints, Skill } from '../../model/schema.js';
import { RISK_LEVELS } from '../../model/vocabulary.js';
import { ObjectReader } from '../../source/reader.js';
import type { ImportContext } from '../types.js';
import {
  ENTRY_REQUIRED,
  exportBase,
  extensionsWith,
  leftoversOf,
  overlay,
  readBase,
  readMetadata,
  requireKeys,
  type JsonObject,
} from './base.js';

/** Translate one entry of `skills`. Undefined (reported) when it has no usable id. */
export function importSkill(context: ImportContext, value: unknown, pointer: string): Skill | undefined {
  const r = ObjectReader.of(context, value, pointer, 'A Xena skill');
  if (!r) return undefined;
  const base = readBase(r, 'A Xena skill');
  if (!base) return undefined;
  requireKeys(r, ENTRY_REQUIRED, `Skill "${base.id}"`);
  const metadata = readMetadata(r);
  const capabilities = r.strings('requiredCapabilities');
  const tools = r.strings('preferredToolIds');
  const kept: JsonObject = {
    intentTypes: r.strings('intentTypes'),
    preferredResourceIds: r.strings('preferredResourceIds'),
    guardrails: r.strings('guardrails'),
    outputContract: r.object('outputContract')?.value,
    ...r.rest({ where: `skill "${base.id}"` }),
  };
  return compactRequired<Skill>({ ...base, metadata, capabilities, tools, extensions: extensionsWith(kept) });
}

/** One canonical skill as a Xena skill entry. */
export function exportSkill(skill: Skill): unknown {
  return overlay(leftoversOf(skill), {
    ...exportBase(skill),
    metadata: skill.metadata,
    requiredCapabilities: skill.capabilities,
    preferredToolIds: skill.tools,
  });
}

/**
 * `constraints`: the known fields (checked; bad values are left out) become
 * the canonical `constraints`, which toolcap enforces; unknown ones are kept
 * for the round trip. `{}` stays `{}` on export.
 */
function readConstraints(reader: ObjectReader): { constraints?: AgentConstraints; kept?: JsonObject } {
  const c = reader.object('constraints');
  if (!c) return {};
  const constraints = compact<AgentConstraints>({
    maxRiskLevel: c.enumValue('maxRiskLevel', RISK_LEVELS),
    requireDeterministicTools: c.boolean('requireDeterministicTools'),
  });
  const rest = c.rest({ where: 'constraints' });
  return { constraints: constraints ?? {}, ...(rest !== undefined ? { kept: rest } : {}) };
}

/** Translate one entry of `agents`. Undefined (reported) when it has no usable id. */
export function importAgent(context: ImportContext, value: unknown, pointer: string): Agent | undefined {
  const r = ObjectReader.of(context, value, pointer, 'A Xena agent');
  if (!r) return undefined;
  const base = readBase(r, 'A Xena agent');
  if (!base) return undefined;
  requireKeys(r, ENTRY_REQUIRED, `Agent "${base.id}"`);
  const metadata = readMetadata(r);
  // Xena agents have no persona; a `persona` written by hand is taken as the canonical one.
  const persona = r.string('persona');
  const skills = r.strings('skillIds');
  const tools = r.strings('toolIds');
  let read: ReturnType<typeof readConstraints> = {};
  // read in the source's order, so findings come out in it
  const kept: JsonObject = {
    intentTypes: r.strings('intentTypes'),
    resourceIds: r.strings('resourceIds'),
    weight: r.number('weight', { integer: true, min: 0 }),
    constraints: (read = readConstraints(r)).kept,
    ...r.rest({ where: `agent "${base.id}"` }),
  };
  return compactRequired<Agent>({ ...base, metadata, persona, skills, tools, constraints: read.constraints, extensions: extensionsWith(kept) });
}

/** One canonical agent as a Xena agent entry. */
export function exportAgent(agent: Agent): unknown {
  return overlay(leftoversOf(agent), {
    ...exportBase(agent),
    metadata: agent.metadata,
    persona: agent.persona,
    skillIds: agent.skills,
    toolIds: agent.tools,
    constraints: agent.constraints,
  });
}
