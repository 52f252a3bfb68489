/**
 * The Temporal dispatcher's request mapping, against an injected client
 * (no Temporal server can run here): signalWithStart routes call
 * `workflow.signalWithStart`, signalOnly routes `getHandle(id).signal`, and
 * Temporal's WorkflowNotFoundError becomes WorkflowNotRunningError.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { DispatchUnavailableError, WorkflowNotRunningError, type DispatchRequest } from '../../src/runtime/dispatch/dispatcher.js';
import { temporalDispatcher, type TemporalWorkflows } from '../../src/runtime/dispatch/temporal.js';

function fakeClient(fail?: Error) {
  const calls: unknown[][] = [];
  const workflows: TemporalWorkflows = {
    async signalWithStart(type, options) {
      calls.push(['signalWithStart', type, options]);
      if (fail) throw fail;
      return {};
    },
    getHandle(id) {
      return {
        async signal(name, ...args) {
          calls.push(['signal', id, name, ...args]);
          if (fail) throw fail;
        },
      };
    },
  };
  return { workflows, calls };
}

const base: Omit<DispatchRequest, 'mode' | 'bootstrap'> = {
  workflowId: 'mail-1', workflowType: 'agentmail', workflowName: 'agentmailWorkflow', signalName: 'manusEvent', payload: { projectKey: 'acme' }, idempotencyKey: 'event:e1',
};

describe('temporal dispatcher: request mapping', () => {
  it.each([
    ['signalWithStart', 'agentmail', ['signalWithStart', 'agentmailWorkflow', { workflowId: 'mail-1', taskQueue: 'xena', signal: 'manusEvent', signalArgs: [{ projectKey: 'acme' }, { idempotencyKey: 'event:e1' }], args: [{ bootstrap: 'agentmail', event: { projectKey: 'acme' } }] }]],
    ['signalWithStart', 'none', ['signalWithStart', 'agentmailWorkflow', { workflowId: 'mail-1', taskQueue: 'xena', signal: 'manusEvent', signalArgs: [{ projectKey: 'acme' }, { idempotencyKey: 'event:e1' }], args: [] }]],
    ['signalOnly', 'none', ['signal', 'mail-1', 'manusEvent', { projectKey: 'acme' }, { idempotencyKey: 'event:e1' }]],
  ] as const)('%s with bootstrap %s', async (mode, bootstrap, expected) => {
    const { workflows, calls } = fakeClient();
    const d = temporalDispatcher({ workflows, taskQueue: 'xena' });
    expect(await d.dispatch({ ...base, mode, bootstrap })).toEqual({ workflowId: 'mail-1', started: false, duplicate: false });
    expect(calls).toEqual([expected]);
  });

  it('uses the bootstrap arguments it is given', async () => {
    const { workflows, calls } = fakeClient();
    const d = temporalDispatcher({ workflows, taskQueue: 'q', bootstrapArgs: (b, p) => [b, (p as { projectKey: string }).projectKey, 'env'] });
    await d.dispatch({ ...base, mode: 'signalWithStart', bootstrap: 'agentmail' });
    expect((calls[0]![2] as { args: unknown[] }).args).toEqual(['agentmail', 'acme', 'env']);
  });

  it('signalOnly to a workflow Temporal does not know is WorkflowNotRunningError naming it', async () => {
    const { workflows } = fakeClient(new WorkflowNotFoundError('not found', 'mail-1', undefined));
    const d = temporalDispatcher({ workflows, taskQueue: 'xena' });
    const err = await d.dispatch({ ...base, mode: 'signalOnly', bootstrap: 'none' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowNotRunningError);
    expect(err).toMatchObject({ code: 'WORKFLOW_NOT_RUNNING', workflowId: 'mail-1' });
  });

  it('any other failure is DispatchUnavailableError', async () => {
    const { workflows } = fakeClient(new Error('connection refused'));
    const d = temporalDispatcher({ workflows, taskQueue: 'xena' });
    await expect(d.dispatch({ ...base, mode: 'signalWithStart', bootstrap: 'none' })).rejects.toBeInstanceOf(DispatchUnavailableError);
  });
});
