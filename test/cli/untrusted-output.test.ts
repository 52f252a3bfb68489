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
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printApproval, printAudit, printError, printResult } from '../../src/cli/call-output.js';
import { remoteApprovals } from '../../src/cli/remote.js';
import { cli } from './helpers.js';
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

/**
 * Every human-readable command over a catalog whose manifest and MCP-discovered tools (the discovery cache) carry
 * hostile text in their names, descriptions, personas, alternatives, OAuth service names and annotations, and over a
 * store whose approvals and audit rows hold a caller's hostile arguments and note. Before, `list` and `search` printed
 * a persona-scoped key and the manifest's alternatives raw, `oauth status`/`connect` the service names, `mcp add` a
 * registry entry's name, `tools upsert` the file's own text (through JSON.parse's message): a screen clear, an OSC 52
 * clipboard write, a carriage return, a bidi override and the one-byte CSI reached the terminal as they were.
 */
describe('commands over a hostile catalog print nothing a terminal acts on', () => {
  const HOSTILE = `x\u001b[2J\u001b]52;c;cm0gLXJmIH4=\u0007\r\u202e\u009b2J\ntoolcap: forged`;
  /** The raw bytes: ESC, BEL (ends OSC), CR, RLO, CSI. */
  const RAW = ['\u001b', '\u0007', '\r', '\u202e', '\u009b'];
  let root: string;
  let config: string;
  const state: { approval?: string } = {};

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'toolcap-hostile-'));
    mkdirSync(join(root, 'manifests'));
    mkdirSync(join(root, '.toolcap', 'mcp'), { recursive: true });
    writeFileSync(join(root, 'manifests', 'tools.json'), JSON.stringify({
      toolcap: 1,
      tools: [
        {
          name: 'evil.read', version: '1.0.0', description: `Reads the thing and returns it ${HOSTILE}`,
          effects: { mode: 'read', sideEffects: 'none', risk: 'low', reversible: 'full' },
          alternatives: [`safe${HOSTILE}`], scope: { personas: [`p${HOSTILE}`] }, tags: [`t${HOSTILE}`], providers: [{ name: `p${HOSTILE}` }],
        },
        {
          name: 'evil.write', version: '1.0.0', description: `Deletes the thing and writes it ${HOSTILE}`,
          effects: { mode: 'write', sideEffects: 'filesystem', risk: 'high', reversible: 'none' }, alternatives: ['evil.read', `alt${HOSTILE}`],
          inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
          auth: { oauth: [{ name: `svc${HOSTILE}`, authorizationUrl: 'https://a.example/auth', tokenUrl: 'https://a.example/token', clientId: 'c' }] },
          providers: [{ name: 'nowhere' }],
        },
        {
          name: 'evil.send', version: '1.0.0', description: `Sends the thing ${HOSTILE}`,
          effects: { mode: 'write', sideEffects: 'network', risk: 'medium', reversible: 'none' }, approval: { required: true },
          inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, providers: [{ name: 'nowhere' }],
        },
      ],
    }));
    // what an MCP server said in tools/list, as discovery caches it: its description, its own name (id) and title annotation
    writeFileSync(join(root, '.toolcap', 'mcp', 'mcp.evil.json'), JSON.stringify({
      toolcap: 1,
      tools: [{ name: 'mcp.evil.lookup', id: `look${HOSTILE}`, title: `T${HOSTILE}`, description: `Looks up the thing ${HOSTILE}`, effects: { mode: 'read' }, tags: ['mcp', 'mcp.evil', `x${HOSTILE}`], hints: { readOnly: true }, providers: [{ name: 'mcp', priority: 0, config: { server: 'evil', tool: `look${HOSTILE}` } }] }],
    }));
    config = join(root, 'toolcap.config.yaml');
    writeFileSync(config, 'sources: [manifests/]\nstore:\n  path: .toolcap/toolcap.db\nmcp:\n  enabled: true\n');
    // MCP Registry entries (server.json): two entries, and one alone (its name goes into the edited config's comment)
    writeFileSync(join(root, 'two.json'), JSON.stringify([{ name: `io.github.a/b${HOSTILE}`, packages: [{ registryType: 'npm', identifier: 'x' }] }, { name: 'io.github.a/c', packages: [{ registryType: 'npm', identifier: 'y' }] }]));
    writeFileSync(join(root, 'one.json'), JSON.stringify({ name: `io.github.a/b${HOSTILE}`, packages: [{ registryType: 'npm', identifier: 'x' }] }));
    // a learned tool entry someone sent: not JSON (its text is quoted by the parser), and JSON that is not a valid tool
    writeFileSync(join(root, 'broken.json'), `{"name": "a", "b": ${HOSTILE} }`);
    writeFileSync(join(root, 'invalid.json'), JSON.stringify({ name: 'learned.one', description: HOSTILE, effects: { mode: `m${HOSTILE}` }, [`k${HOSTILE}`]: 1 }));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const rows: Array<[string, () => string[], RegExp?]> = [
    ['validate', () => ['validate', '--config', config], /\\u001b\[2J/],
    ['inspect', () => ['inspect', '--config', config], /\\u001b\[2J/],
    ['list', () => ['list', '--config', config], /evil\.read@px\\u001b\[2J/],
    ['search --explain', () => ['search', '--config', config, '--explain', '--query', 'delete the thing'], /safer alternatives: evil\.read, altx\\u001b/],
    ['search', () => ['search', '--config', config, '--query', 'look up the thing'], /evil\.read@px\\u001b/],
    ['oauth status', () => ['oauth', 'status', '--config', config], /svcx\\u001b/],
    ['oauth connect (no such service)', () => ['oauth', 'connect', 'evil.write', '--service', 'nope', '--config', config], /svcx\\u001b/],
    ['call (pending approval)', () => ['call', 'evil.send', '--args', JSON.stringify({ q: HOSTILE }), '--config', config]],
    ['approvals list', () => ['approvals', 'list', '--config', config], /"q": ?"x\\u001b\[2J/],
    ['approvals deny', () => ['approvals', 'deny', state.approval ?? 'none', '--note', HOSTILE, '--config', config], /^Denied /m],
    ['approvals show', () => ['approvals', 'show', state.approval ?? 'none', '--config', config], /\\u001b\[2J/],
    ['audit', () => ['audit', '--config', config], /\\u001b\[2J/],
    ['tools upsert (not JSON)', () => ['tools', 'upsert', join(root, 'broken.json'), '--config', config], /not a readable JSON tool entry: .*\\u001b/],
    ['tools upsert (invalid tool)', () => ['tools', 'upsert', join(root, 'invalid.json'), '--config', config], /UNKNOWN_FIELD: Unknown field "kx\\u001b/],
    ['tools learned', () => ['tools', 'learned', '--config', config]],
    ['mcp add (two entries)', () => ['mcp', 'add', join(root, 'two.json'), '--dry-run', '--config', config], /\\u001b/],
    ['mcp add --dry-run (the edited config quotes the entry)', () => ['mcp', 'add', join(root, 'one.json'), '--dry-run', '--config', config]],
  ];

  it.each(rows)('%s', { timeout: 30_000 }, async (_label, argv, reached) => {
    const { stdout, stderr } = await cli(...argv());
    const id = /approvals approve (\S+)/.exec(stdout)?.[1];
    if (id !== undefined) state.approval = id;
    for (const [stream, text] of [['stdout', stdout], ['stderr', stderr]] as const) {
      for (const raw of RAW) expect(text.includes(raw), `${stream} holds ${JSON.stringify(raw)}:\n${text}`).toBe(false);
      expect(text, stream).not.toMatch(/^toolcap: forged/m);
    }
    // the hostile text was printed (escaped), not left out
    if (reached) expect(stdout + stderr).toMatch(reached);
  });
});
