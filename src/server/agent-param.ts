/**
 * The `agent` query parameter of `/tools` and `/search`: the catalog agent
 * whose view the answer is narrowed to (query/agent-view.ts). It only
 * narrows: the view is applied within the personas the request acts as
 * (already resolved for the principal by personas.ts), and an agent bound
 * to a persona answers only for that persona. An unknown agent is a 404
 * UNKNOWN_AGENT, never an unfiltered answer.
 * @module
 */
import type { AgentView } from '../query/agent-view.js';
import { NO_SHARED } from '../query/filters.js';
import type { Snapshot } from '../registry/snapshot.js';
import { requireAgent } from '../runtime/agent-gate.js';
import { CallError } from '../runtime/errors.js';
import { badParameters, callProblem } from './problem.js';

/**
 * The request's `agent` (once, not empty; else 400 BAD_PARAMETER) and its
 * other parameters, for the parser of the route's own.
 * @example takeAgent(new URLSearchParams('agent=a&max_risk=low')) // { agent: 'a', rest: max_risk=low }
 */
export function takeAgent(params: URLSearchParams): { agent?: string; rest: URLSearchParams } {
  const asked = params.getAll('agent');
  const rest = new URLSearchParams([...params].filter(([k]) => k !== 'agent'));
  if (asked.length > 1) throw badParameters([{ parameter: 'agent', message: '"agent" may be given once.' }]);
  if (asked[0] === '') throw badParameters([{ parameter: 'agent', message: 'The agent is empty.' }]);
  return asked[0] === undefined ? { rest } : { agent: asked[0], rest };
}

/**
 * The agent's view for a catalog read acting as `personas` (the request's,
 * after scoping; `-shared` aside), or the problem: 404 UNKNOWN_AGENT, 403
 * AGENT_FORBIDDEN (disabled, or bound to a persona the request does not act
 * as exactly).
 */
export function agentFor(snapshot: Snapshot, agent: string, personas: readonly string[] | undefined): AgentView {
  const named = [...new Set((personas ?? []).filter((p) => p !== NO_SHARED))];
  // a read for several personas at once acts as none of them alone
  const persona = named.length === 1 ? named[0] : named.length === 0 ? undefined : '\u0000several';
  try {
    return requireAgent(snapshot, agent, persona);
  } catch (error) {
    if (error instanceof CallError) throw callProblem(error);
    throw error;
  }
}
