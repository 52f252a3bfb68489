/**
 * The OpenAI Agents SDK adapter against the real `@openai/agents` 0.14: a
 * `Runner` with a scripted model (the SDK's Model interface, no network)
 * calls toolcap tools; a tool needing approval interrupts the run with the
 * toolcap approval id, a person decides in toolcap, the run resumes.
 */
import { Agent, Runner, Usage, setTracingDisabled, type Model, type ModelRequest, type ModelResponse } from '@openai/agents';
import { beforeAll, describe, expect, it } from 'vitest';
import { httpClient, inProcessClient, type ToolcapClient } from '../../src/adapters/client.js';
import { toolcapAgentTools } from '../../src/adapters/openai-agents.js';
import { perTest, serve } from './helpers.js';

beforeAll(() => setTracingDisabled(true));

const { closing, project } = perTest();

/** A model that answers from a script: first a function call, then text echoing the tool output it got. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly call: { name: string; arguments: Record<string, unknown> }) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const input = Array.isArray(request.input) ? request.input : [];
    const output = input.find((item) => (item as { type?: string }).type === 'function_call_result') as { output?: unknown } | undefined;
    if (output === undefined) {
      return { usage: new Usage(), output: [{ type: 'function_call', callId: `call_${this.requests.length}`, name: this.call.name, arguments: JSON.stringify(this.call.arguments), status: 'completed' }] };
    }
    // the SDK hands a string output back as { type: 'text', text }
    const given = output.output as { type?: string; text?: string } | string;
    const text = typeof given === 'string' ? given : given.type === 'text' ? given.text : JSON.stringify(given);
    return { usage: new Usage(), output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `tool said: ${text}` }] }] };
  }
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not scripted');
  }
}

function agentFor(tools: Awaited<ReturnType<typeof toolcapAgentTools>>, call: ConstructorParameters<typeof ScriptedModel>[0]) {
  const model = new ScriptedModel(call);
  return { model, agent: new Agent({ name: 'ops', instructions: 'Use the tools.', model, tools: tools.tools }), runner: new Runner({ tracingDisabled: true }) };
}

describe('toolcap tools for the OpenAI Agents SDK', () => {
  it.each<[string, boolean, Record<string, boolean>]>([
    ['in process (manifest and configured rules)', false, { text_reverse: false, notes_append: true, reports_publish: true }],
    ['over HTTP (the manifest alone, up front)', true, { text_reverse: false, notes_append: true, reports_publish: false }],
  ])('needsApproval comes from the manifest: %s', async (_label, http, expected) => {
    const p = await project();
    let client: ToolcapClient = inProcessClient(p.toolcap);
    if (http) {
      const server = await serve(p);
      closing.push(() => server.close());
      client = httpClient({ url: server.url });
    }
    const set = await toolcapAgentTools(client);
    const got = Object.fromEntries(set.catalog.map((t) => [t.name, t.approvalReason !== undefined]));
    expect(got).toEqual(expected);
    // the safe names map back to toolcap's, and the capability block travels along
    expect(set.catalog.map((t) => t.toolcapName)).toEqual(['notes.append', 'reports.publish', 'text.reverse']);
    expect(set.catalog[0]?.capability).toMatchObject({ approvalRequired: true, sideEffects: 'filesystem', mode: 'write' });
    expect(set.tools.map((t) => [t.name, t.type])).toEqual([['notes_append', 'function'], ['reports_publish', 'function'], ['text_reverse', 'function']]);
  });

  it('runs a tool that needs no approval straight through toolcap', async () => {
    const p = await project();
    const set = await toolcapAgentTools(inProcessClient(p.toolcap, { caller: 'agent:ops' }));
    const { agent, runner } = agentFor(set, { name: 'text_reverse', arguments: { text: 'abc' } });
    const result = await runner.run(agent, 'reverse abc');
    expect(result.interruptions).toEqual([]);
    expect(result.finalOutput).toBe('tool said: {"reversed":"cba"}');
  });

  it.each([
    ['in process', false],
    ['over HTTP', true],
  ])('interrupts with the toolcap approval id, waits for a person, and resumes with what toolcap ran (%s)', async (_label, http) => {
    const p = await project();
    let client: ToolcapClient = inProcessClient(p.toolcap, { caller: 'agent:ops' });
    let approve = (id: string) => p.toolcap.runtime.approve(id, { by: 'alice' }).then(() => undefined);
    if (http) {
      const server = await serve(p);
      closing.push(() => server.close());
      client = httpClient({ url: server.url, caller: 'agent:ops' });
      approve = async (id) => {
        const res = await fetch(`${server.url}/approvals/${id}/approve`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ by: 'alice' }) });
        expect(res.status).toBe(200);
      };
    }
    const set = await toolcapAgentTools(client);
    const { agent, runner, model } = agentFor(set, { name: 'notes_append', arguments: { line: 'deploy at noon' } });

    const first = await runner.run(agent, 'note the deploy');
    expect(first.interruptions).toHaveLength(1);
    const [pending] = set.pendingApprovals(first.interruptions);
    expect(pending).toMatchObject({ tool: 'notes.append', approvalId: expect.stringMatching(/^apr_[0-9a-f]{32}$/), reason: expect.stringContaining('approval.required') });
    const id = pending!.approvalId;
    const stored = await p.toolcap.runtime.getApproval(id);
    expect(stored).toMatchObject({ status: 'pending', tool: 'notes.append', arguments: { line: 'deploy at noon' }, requestedBy: 'agent:ops' });

    // nobody decided yet: settling changes nothing, and the state stays interrupted
    expect(await set.settle(first.state)).toMatchObject({ approved: [], rejected: [], pending: [{ approvalId: id }] });

    await approve(id);
    const settled = await set.settle(first.state);
    expect(settled.approved.map((a) => a.approvalId)).toEqual([id]);
    const resumed = await runner.run(agent, first.state);
    expect(resumed.interruptions).toEqual([]);
    expect(resumed.finalOutput).toBe('tool said: {"appended":"deploy at noon","lines":1}');
    // toolcap ran it once, on the person's approval; the resumed run only read the outcome
    expect(await p.toolcap.runtime.getApproval(id)).toMatchObject({ status: 'executed', decidedBy: 'alice' });
    expect(model.requests).toHaveLength(2);
  });

  it('a denial in toolcap rejects the interruption, with toolcap\'s reason for the model', async () => {
    const p = await project();
    const set = await toolcapAgentTools(inProcessClient(p.toolcap, { caller: 'agent:ops' }));
    const { agent, runner } = agentFor(set, { name: 'notes_append', arguments: { line: 'rm -rf' } });
    const first = await runner.run(agent, 'note it');
    const [pending] = set.pendingApprovals(first.interruptions);
    await p.toolcap.runtime.deny(pending!.approvalId, { by: 'alice', note: 'not today' });
    expect((await set.settle(first.state)).rejected).toHaveLength(1);
    const resumed = await runner.run(agent, first.state);
    expect(resumed.finalOutput).toContain(`approval ${pending!.approvalId} is denied (not today)`);
    expect(resumed.finalOutput).toContain('did not run');
  });

  it('the agent cannot grant itself: approving the interruption without toolcap runs nothing', async () => {
    const p = await project();
    const set = await toolcapAgentTools(inProcessClient(p.toolcap, { caller: 'agent:ops' }));
    const { agent, runner } = agentFor(set, { name: 'notes_append', arguments: { line: 'sneaky' } });
    const first = await runner.run(agent, 'note it');
    const [pending] = set.pendingApprovals(first.interruptions);
    first.state.approve(first.interruptions[0]!);
    const resumed = await runner.run(agent, first.state);
    expect(resumed.finalOutput).toContain(`APPROVAL_PENDING: approval ${pending!.approvalId} is pending in toolcap`);
    expect(await p.toolcap.runtime.getApproval(pending!.approvalId)).toMatchObject({ status: 'pending', decidedBy: null });
  });

  it('a rule the HTTP client cannot see up front still holds: execute reports the pending approval id', async () => {
    const p = await project();
    const server = await serve(p);
    closing.push(() => server.close());
    const set = await toolcapAgentTools(httpClient({ url: server.url }));
    const { agent, runner } = agentFor(set, { name: 'reports_publish', arguments: { title: 'Q3' } });
    const result = await runner.run(agent, 'publish');
    expect(result.interruptions).toEqual([]);
    expect(result.finalOutput).toMatch(/APPROVAL_PENDING: approval apr_[0-9a-f]{32} is pending in toolcap/);
    const approvals = await p.toolcap.runtime.listApprovals({ tool: 'reports.publish' });
    expect(approvals.map((a) => a.status)).toEqual(['pending']);
  });
});
