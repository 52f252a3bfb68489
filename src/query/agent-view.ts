/**
 * An agent's view: the tools one agent of the catalog may be offered and may
 * call. The one owner of the rule; `/tools?agent=`, `/search?agent=`, the MCP
 * gateway's `?agent=` and the runtime's call-time check all ask it.
 *
 * A tool is in the agent's view when all of these hold:
 *
 * - the agent and the tool are enabled (a disabled agent's view is empty;
 *   `/tools` lists disabled tools, an agent's view does not: `enabled`);
 * - the tool is **listed**: named in the agent's `tools` (Xena `toolIds`), or
 *   in the `tools` of one of its skills (`skillIds` -> `preferredToolIds`), or
 *   it provides a capability one of its skills requires (Xena
 *   `requiredCapabilities`, the tools "its skills need") or the agent's own
 *   `capabilities`. An agent that lists nothing gets nothing (`toolIds`);
 * - its risk (`effects.risk`, completed, so never silent) is at most
 *   `constraints.maxRiskLevel` (`maxRiskLevel`);
 * - with `constraints.requireDeterministicTools`, the tool declares
 *   `effects.deterministic: true` (Xena `deterministic: true`). A tool silent
 *   on it is read as not deterministic (the loader completes silence to
 *   `false`): fail closed (`requireDeterministicTools`).
 *
 * The view only narrows the caller's persona view: it is applied to the tools
 * the caller may already see, and an agent bound to a persona (`persona`) is
 * refused to callers acting as another one (`persona`).
 *
 * References are resolved as everywhere else: a canonical name, the id the
 * source format uses (Xena `tool.tasks.linear.assigned`, `Agent.Operator`),
 * or a pinned `id@1.2.0`.
 * @module
 */
import type { Agent, Skill, Tool } from '../model/schema.js';
import { rank, RISK_LEVELS } from '../model/vocabulary.js';
import type { Snapshot } from '../registry/snapshot.js';
import { capabilityMet } from '../validate/skill-coverage.js';

/** Which rule of the agent refused a tool, in the order they are checked. */
export const AGENT_CONSTRAINTS = ['enabled', 'persona', 'toolIds', 'maxRiskLevel', 'requireDeterministicTools'] as const;
export type AgentConstraint = (typeof AGENT_CONSTRAINTS)[number];

/** Why the agent may not use a tool (or may not be used as this persona). */
export interface AgentRefusal {
  agent: string;
  constraint: AgentConstraint;
  message: string;
}

const unpinned = (ref: string): string => ref.replace(/@[^@]*$/, '');

/** Look an entry up by canonical name or source id, pinned or not. */
function lookup<T extends { name: string; id?: string }>(entries: readonly T[], ref: string): T | undefined {
  const plain = unpinned(ref);
  return (
    entries.find((e) => e.name === ref) ??
    entries.find((e) => e.id === ref) ??
    entries.find((e) => e.name === plain) ??
    entries.find((e) => e.id === plain) ??
    // canonical names are lower-case; Xena ids keep their capitals
    entries.find((e) => e.name === plain.toLowerCase())
  );
}

/** The agent a reference names in this snapshot, or undefined. */
export function findAgent(snapshot: Snapshot, ref: string): Agent | undefined {
  return ref === '' ? undefined : lookup(snapshot.agents, ref);
}

/** One agent's rule over one snapshot. Made by {@link agentView}. */
export class AgentView {
  readonly agent: Agent;
  /** Names of the tools the agent lists directly or through its skills. */
  readonly #named: ReadonlySet<string>;
  /** Capabilities the agent's skills (and the agent itself) require. */
  readonly #wanted: readonly string[];

  constructor(snapshot: Snapshot, agent: Agent) {
    this.agent = agent;
    const skills = (agent.skills ?? []).map((ref) => lookup(snapshot.skills, ref)).filter((s): s is Skill => s !== undefined);
    const named = new Set<string>();
    for (const ref of [...(agent.tools ?? []), ...skills.flatMap((s) => s.tools ?? [])]) {
      const tool = lookup(snapshot.tools, ref);
      if (tool) named.add(tool.name);
    }
    this.#named = named;
    this.#wanted = [...new Set([...(agent.capabilities ?? []), ...skills.filter((s) => s.enabled !== false).flatMap((s) => s.capabilities ?? [])])];
  }

  /** The agent's name as messages show it: its source id when it has one. */
  get label(): string {
    return this.agent.id ?? this.agent.name;
  }

  /**
   * Refused when the agent is bound to a persona other than the one the
   * request acts as (`undefined`: no persona). Undefined when it may be used.
   */
  personaRefusal(persona: string | undefined): AgentRefusal | undefined {
    if (this.agent.enabled === false) return this.#refuse('enabled', `Agent "${this.label}" is disabled (enabled: false).`);
    const bound = this.agent.persona;
    if (bound === undefined || bound === persona) return undefined;
    return this.#refuse('persona', `Agent "${this.label}" acts as persona "${bound}"; this request does not (ask with persona "${bound}").`);
  }

  /** Why the agent may not use this tool, or undefined when it may. */
  refusal(tool: Tool): AgentRefusal | undefined {
    if (this.agent.enabled === false) return this.#refuse('enabled', `Agent "${this.label}" is disabled (enabled: false).`);
    if (tool.enabled === false) return this.#refuse('enabled', `Tool "${tool.name}" is disabled (enabled: false); no agent is offered it.`);
    if (!this.#named.has(tool.name) && !this.#wanted.some((c) => capabilityMet(c, new Set(tool.capabilities ?? [])))) {
      return this.#refuse('toolIds', `Agent "${this.label}" does not list tool "${tool.name}" (toolIds), nor do its skills (skillIds) name it or need a capability it provides.`);
    }
    const max = this.agent.constraints?.maxRiskLevel;
    const risk = tool.effects?.risk;
    if (max !== undefined && (risk === undefined || rank(RISK_LEVELS, risk) > rank(RISK_LEVELS, max))) {
      return this.#refuse('maxRiskLevel', `Tool "${tool.name}" is ${risk ?? 'of unknown'} risk; agent "${this.label}" allows at most ${max} (constraints.maxRiskLevel).`);
    }
    if (this.agent.constraints?.requireDeterministicTools === true && tool.effects?.deterministic !== true) {
      return this.#refuse('requireDeterministicTools', `Tool "${tool.name}" does not declare deterministic: true; agent "${this.label}" requires deterministic tools (constraints.requireDeterministicTools).`);
    }
    return undefined;
  }

  /** Whether the agent may use this tool. */
  allows(tool: Tool): boolean {
    return this.refusal(tool) === undefined;
  }

  #refuse(constraint: AgentConstraint, message: string): AgentRefusal {
    return { agent: this.label, constraint, message };
  }
}

const views = new WeakMap<Snapshot, Map<Agent, AgentView>>();

/**
 * The view of the agent `ref` names in this snapshot (built once per
 * snapshot and agent), or undefined when no agent has that name or id.
 * @example agentView(snapshot, 'agent.operator.primary')?.refusal(tool)?.constraint // 'maxRiskLevel'
 */
export function agentView(snapshot: Snapshot, ref: string): AgentView | undefined {
  const agent = findAgent(snapshot, ref);
  if (!agent) return undefined;
  let byAgent = views.get(snapshot);
  if (!byAgent) views.set(snapshot, (byAgent = new Map()));
  let view = byAgent.get(agent);
  if (!view) byAgent.set(agent, (view = new AgentView(snapshot, agent)));
  return view;
}

/** The agent names a message can offer when a reference matched none: source ids where there are. */
export function agentNames(snapshot: Snapshot): string[] {
  return snapshot.agents.map((a) => a.id ?? a.name);
}

/** What narrows a listing or a ranking: a view, or {@link NOTHING}. */
export type ToolScope = Pick<AgentView, 'allows'>;

/** The view of an agent that is gone (a reload removed it): it allows nothing. */
export const NOTHING: ToolScope = Object.freeze({ allows: () => false });
