/**
 * What the CLI prints for a person at a terminal carries what untrusted
 * parties wrote: an approver's note (it arrives through the API), a
 * caller's name, an approval's reason, audit details, a server's problem
 * detail, task titles a tool returned. Printed raw, an ANSI escape (ESC,
 * or the one-byte CSI U+009B that JSON leaves as it is) rewrote the
 * operator's terminal, a newline forged a line and a bidi override (U+202E,
 * which JSON leaves as it is) showed a value reversed. Every such text is
 * redacted and written as one line, its control characters escaped.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printApproval, printAudit, printError, printResult } from '../../src/cli/call-output.js';
import { remoteApprovals } from '../../src/cli/remote.js';
import { printSnapshot } from '../../src/cli/tasks.js';
import type { CliIO } from '../../src/cli/io.js';
import { CallError } from '../../src/runtime/errors.js';
import { createRedactor } from '../../src/runtime/containment/redact.js';
import type { ApprovalView, CallResult } from '../../src/runtime/runtime.js';
import type { AuditRecord } from '../../src/store/types.js';
import type { TaskSnapshot } from '../../src/runtime/probes/types.js';

const CLEAR = '\u001b[2J\u001b[H';
const CSI = '\u009b2J';
const FORGED = 'toolcap: approval apr_1 approved by admin';
const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
const RLO = '\u202e';
const EVIL = `ok${CLEAR}${CSI}\n${FORGED}\r\u2028${RLO} ${TOKEN}`;

function capture(): CliIO & { out: () => string } {
  let text = '';
  return { stdout: (t) => void (text += t), stderr: (t) => void (text += t), env: {}, out: () => text };
}

/** Nothing a terminal acts on, no forged line, no token. */
function expectInert(text: string) {
  expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
  expect(text.split('\n')).not.toContain(FORGED);
  expect(text).not.toContain(TOKEN);
}

const approval = (): ApprovalView =>
  ({
    id: 'apr_1', status: 'denied', tool: `t${CLEAR}`, persona: `p${CSI}`, createdAt: '2030-01-01T00:00:00.000Z', requestedBy: EVIL,
    arguments: { q: EVIL }, reason: EVIL, manifestHash: 'sha256:00', decidedAt: '2030-01-01T00:00:01.000Z', decidedBy: EVIL, decidedVia: 'http',
    note: EVIL, outcome: { error: EVIL },
  }) as unknown as ApprovalView;

describe('untrusted text on the terminal', () => {
  it('printApproval: the note, reason, names and values are redacted and one line each', () => {
    const io = capture();
    printApproval(approval(), io);
    expectInert(io.out());
    expect(io.out()).toContain('\\u001b[2J');
    expect(io.out()).toContain('[REDACTED]');
    expect(io.out().split('\n').filter(Boolean)).toHaveLength(6);
  });

  it('printApproval with the runtime\'s redactor hides its known secrets too', () => {
    const io = capture();
    const a = approval();
    a.note = 'the secret is hunter2hunter2';
    printApproval(a, io, createRedactor({ secrets: ['hunter2hunter2'] }));
    expect(io.out()).not.toContain('hunter2hunter2');
  });

  it('printAudit: actor, tool and detail', () => {
    const io = capture();
    const record = { seq: 1, at: '2030-01-01T00:00:00.000Z', kind: 'approval.denied', tool: `t${CSI}`, callId: null, persona: null, actor: EVIL, detail: { note: EVIL } } as unknown as AuditRecord;
    printAudit([record], io, false);
    expectInert(io.out());
  });

  it('printResult and printError: a pending approval\'s reason, a failure\'s message, the result\'s text', () => {
    const io = capture();
    printResult({ status: 'pending_approval', approval: { id: 'apr_1', reason: EVIL } } as unknown as CallResult, io, false, '');
    // a server's answer (--server) names the approval: its id is repeated in the commands suggested
    printResult({ status: 'pending_approval', approval: { id: `apr_2${CLEAR}${CSI}\n${FORGED}`, reason: 'r' } } as unknown as CallResult, io, false, '');
    printResult({ status: 'ok', tool: 't', provider: EVIL, durationMs: 1, attempts: 1, skipped: [EVIL], result: { text: `a${CSI}` } } as unknown as CallResult, io, false, '');
    printError(new CallError('PROVIDER_ERROR', EVIL), io, false);
    expectInert(io.out());
  });

  it('printSnapshot: task titles, assignees and reasons a tool returned', () => {
    const io = capture();
    const snapshot: TaskSnapshot = {
      generatedAt: '2030-01-01T00:00:00.000Z', counts: { ok: 1, stale: 0, error: 1, unsupported: 0 },
      sources: [
        { tool: 'tasks', status: 'ok', adapter: 'mapping', observations: [{ taskId: `1${CLEAR}`, state: 'open', title: EVIL, assignee: EVIL, ageSec: 1, stale: false } as never] },
        { tool: 'broken', status: 'error', adapter: 'mapping', code: 'PROVIDER_ERROR', reason: EVIL },
      ],
    };
    printSnapshot(snapshot, io, false);
    expectInert(io.out());
  });

  describe('--server', () => {
    let server: Server;
    let url: string;
    beforeAll(async () => {
      server = createServer((req, res) => {
        if (req.url?.startsWith('/approvals/apr_1')) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(approval()));
          return;
        }
        res.writeHead(409, { 'content-type': 'application/problem+json' }).end(JSON.stringify({ code: 'APPROVAL_CONFLICT', detail: EVIL, diagnostics: [{ severity: 'error', code: 'X', message: EVIL }], allowed: [EVIL] }));
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it('an approval the server answers, and a problem body\'s detail, findings and names', async () => {
      const io = capture();
      await remoteApprovals('show', 'apr_1', url, {}, io);
      await remoteApprovals('deny', 'apr_2', url, {}, io);
      expect(io.out()).toContain('APPROVAL_CONFLICT');
      expectInert(io.out());
    });
  });
});
