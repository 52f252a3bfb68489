/**
 * The call-time half of an agent's view: a call made for an agent runs only
 * if the tool is in that agent's view (query/agent-view.ts, the one rule the
 * listings use too). A view that only hid tools would not be enforcement.
 * @module
 */
import type { Tool } from '../model/schema.js';
import { agentNames, agentView, type AgentRefusal, type AgentView } from '../query/agent-view.js';
import type { Snapshot } from '../registry/snapshot.js';
import { CallError } from './errors.js';

/** The refusal as a CallError AGENT_FORBIDDEN naming the agent and the rule. */
export function agentForbidden(refusal: AgentRefusal): CallError {
  return new CallError('AGENT_FORBIDDEN', refusal.message, { agent: refusal.agent, constraint: refusal.constraint });
}

/**
 * The view of the agent `ref` names, usable by a request acting as
 * `persona`. Throws CallError UNKNOWN_AGENT (listing the agents there are)
 * or AGENT_FORBIDDEN (a disabled agent, or one bound to another persona).
 * @example const view = requireAgent(snapshot, 'agent.operator.primary', undefined);
 */
export function requireAgent(snapshot: Snapshot, ref: string, persona: string | undefined): AgentView {
  const view = agentView(snapshot, ref);
  if (!view) throw new CallError('UNKNOWN_AGENT', `There is no agent "${ref}".`, { agent: ref, allowed: agentNames(snapshot) });
  const refused = view.personaRefusal(persona);
  if (refused) throw agentForbidden(refused);
  return view;
}

/**
 * Refuse a call of `tool` for agent `ref` unless the agent's view holds it.
 * Nothing to check without an agent.
 */
export function checkAgentCall(snapshot: Snapshot, tool: Tool, ref: string | undefined, persona: string | undefined): void {
  if (ref === undefined) return;
  const refused = requireAgent(snapshot, ref, persona).refusal(tool);
  if (refused) throw agentForbidden(refused);
}
