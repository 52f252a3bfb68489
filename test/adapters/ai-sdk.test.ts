/**
 * The Vercel AI SDK adapter against the real `ai` 6: `generateText` with the
 * SDK's own MockLanguageModelV3 (no network) calls toolcap tools; a tool
 * whose manifest asks approval yields a tool-approval-request, toolcap's
 * decision becomes the tool-approval-response, and the second generateText
 * returns what toolcap ran.
 */
import { generateText, stepCountIs, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { toolcapAiTools } from '../../src/adapters/ai-sdk.js';
import { httpClient, inProcessClient } from '../../src/adapters/client.js';
import { perTest, serve } from './helpers.js';

const { closing, project } = perTest();

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** A mock model: a tool call when the prompt has no tool result yet, else text quoting the result. */
function scriptedModel(toolName: string, input: Record<string, unknown>) {
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const result = prompt.flatMap((m) => (m.role === 'tool' ? m.content : [])).find((part) => part.type === 'tool-result');
      if (result === undefined) {
        return { content: [{ type: 'tool-call', toolCallId: 'tc_1', toolName, input: JSON.stringify(input) }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] };
      }
      return { content: [{ type: 'text', text: `tool said: ${JSON.stringify(result.output)}` }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
    },
  });
}

describe('toolcap tools for the Vercel AI SDK', () => {
  it('lists tools under safe names with the manifest\'s approval rule', async () => {
    const p = await project();
    const set = await toolcapAiTools(inProcessClient(p.toolcap));
    expect(Object.keys(set.tools)).toEqual(['notes_append', 'reports_publish', 'text_reverse']);
    expect(Object.fromEntries(Object.entries(set.tools).map(([name, t]) => [name, typeof t.needsApproval === 'function' ? 'asks toolcap' : t.needsApproval]))).toEqual({
      notes_append: 'asks toolcap',
      reports_publish: 'asks toolcap',
      text_reverse: false,
    });
  });

  it('calls a tool that needs no approval through toolcap', async () => {
    const p = await project();
    const set = await toolcapAiTools(inProcessClient(p.toolcap));
    const result = await generateText({ model: scriptedModel('text_reverse', { text: 'abc' }), tools: set.tools, prompt: 'reverse abc', stopWhen: stepCountIs(3) });
    expect(result.text).toBe('tool said: {"type":"json","value":{"reversed":"cba"}}');
  });

  it.each([
    ['in process', false],
    ['over HTTP', true],
  ])('asks for approval, takes toolcap\'s decision, and returns what toolcap ran (%s)', async (_label, http) => {
    const p = await project();
    let client = inProcessClient(p.toolcap, { caller: 'agent:writer' });
    if (http) {
      const server = await serve(p);
      closing.push(() => server.close());
      client = httpClient({ url: server.url, caller: 'agent:writer' });
    }
    const set = await toolcapAiTools(client);
    const model = scriptedModel('notes_append', { line: 'ship it' });
    const prompt: ModelMessage[] = [{ role: 'user', content: 'note: ship it' }];
    const first = await generateText({ model, tools: set.tools, messages: prompt, stopWhen: stepCountIs(3) });
    const request = first.content.find((part) => part.type === 'tool-approval-request');
    expect(request).toBeDefined();
    const messages = [...prompt, ...first.response.messages];

    // undecided in toolcap: no response to send, the toolcap id is named
    const before = await set.approvalResponses(messages);
    expect(before.responses).toEqual([]);
    expect(before.pending).toEqual([{ requestId: request!.approvalId, toolCallId: 'tc_1', tool: 'notes.append', approvalId: expect.stringMatching(/^apr_/) }]);
    const id = before.pending[0]!.approvalId;
    expect(await p.toolcap.runtime.getApproval(id)).toMatchObject({ status: 'pending', requestedBy: 'agent:writer', arguments: { line: 'ship it' } });

    await p.toolcap.runtime.approve(id, { by: 'alice' });
    const after = await set.approvalResponses(messages);
    expect(after.pending).toEqual([]);
    expect(after.responses).toEqual([{ type: 'tool-approval-response', approvalId: request!.approvalId, approved: true, reason: `toolcap approval ${id}: executed` }]);
    const second = await generateText({ model, tools: set.tools, messages: [...messages, { role: 'tool', content: after.responses }], stopWhen: stepCountIs(3) });
    expect(second.text).toBe('tool said: {"type":"json","value":{"appended":"ship it","lines":1}}');
  });

  it('an application-written approval with no toolcap decision runs nothing', async () => {
    const p = await project();
    const set = await toolcapAiTools(inProcessClient(p.toolcap));
    const model = scriptedModel('notes_append', { line: 'sneaky' });
    const prompt: ModelMessage[] = [{ role: 'user', content: 'note it' }];
    const first = await generateText({ model, tools: set.tools, messages: prompt });
    const request = first.content.find((part) => part.type === 'tool-approval-request')!;
    const messages: ModelMessage[] = [...prompt, ...first.response.messages, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request.approvalId, approved: true }] }];
    const second = await generateText({ model, tools: set.tools, messages, stopWhen: stepCountIs(3) });
    expect(second.text).toMatch(/APPROVAL_PENDING: approval apr_[0-9a-f]{32} is pending in toolcap/);
    const [approval] = await p.toolcap.runtime.listApprovals({ tool: 'notes.append' });
    expect(approval).toMatchObject({ status: 'pending', decidedBy: null });
  });

  it('a denial in toolcap becomes approved: false with toolcap\'s note', async () => {
    const p = await project();
    const set = await toolcapAiTools(inProcessClient(p.toolcap));
    const model = scriptedModel('reports_publish', { title: 'Q3' });
    const prompt: ModelMessage[] = [{ role: 'user', content: 'publish' }];
    const first = await generateText({ model, tools: set.tools, messages: prompt });
    const messages = [...prompt, ...first.response.messages];
    const { pending } = await set.approvalResponses(messages);
    await p.toolcap.runtime.deny(pending[0]!.approvalId, { by: 'alice', note: 'wrong quarter' });
    const { responses } = await set.approvalResponses(messages);
    expect(responses).toMatchObject([{ approved: false, reason: expect.stringContaining('denied (wrong quarter)') }]);
    const second = await generateText({ model, tools: set.tools, messages: [...messages, { role: 'tool', content: responses }], stopWhen: stepCountIs(3) });
    expect(second.text).toContain('execution-denied');
  });
});
