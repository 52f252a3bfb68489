/**
 * Who may do what over MCP: a table of principal x role x persona x MCP
 * operation -> expected outcome, run over both transports with the SDK
 * client: Streamable HTTP through createApi (a fake `authenticate` maps
 * bearer tokens to principals, as the server's table does) and an in-memory
 * transport to createGatewayServer({ principal }) (what stdio serves). The
 * principals, catalog and policy are the HTTP table's
 * (test/server/identity-fixture.ts): ops-bot (persona ops), intern-bot
 * (persona intern, whose text.reverse calls need approval), a reviewer (an
 * approver), root (an admin, every persona) and no principal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { APPROVAL_STATUS_TOOL } from '../../src/mcp/approval-status.js';
import { mcpHttpHandler, type McpHttpHandler } from '../../src/mcp/http.js';
import { createGatewayServer, type Gateway } from '../../src/mcp/server.js';
import { CallError, callErrorWire } from '../../src/runtime/errors.js';
import type { Principal } from '../../src/runtime/identity/principal.js';
import { BASE, cleanFolders } from '../server/helpers.js';
import { bearer, identityApi, PRINCIPALS, type IdentityApi, type Who } from '../server/identity-fixture.js';
import { errorMeta, listAll } from './gateway-helpers.js';

type Transport = 'http' | 'in-memory';
type Op = 'initialize' | 'list' | 'read' | 'write' | 'scoped' | 'othersApproval';

/**
 * What a row must come to. `refused`: the session is not opened (over HTTP
 * the status of the answer to `initialize`, in memory the wire status of
 * createGatewayServer's CallError) with that toolcap code; `rpc`: a JSON-RPC
 * error with that code and `data.code`; `toolError`: a tool result with
 * isError and that `_meta` code (APPROVAL_REQUIRED: pending); `ok` (for
 * `list`: whether the ops-only tool is listed).
 */
type Outcome =
  | { ok: true; scoped?: boolean }
  | { refused: number; code: string }
  | { rpc: number; code: string }
  | { toolError: string };

type Row = [who: Who, persona: string | undefined, op: Op, outcome: Outcome];

const OK: Outcome = { ok: true };
const PENDING: Outcome = { toolError: 'APPROVAL_REQUIRED' };
const FORBIDDEN: Outcome = { toolError: 'FORBIDDEN' };
const NOT_FOUND: Outcome = { rpc: ErrorCode.InvalidParams, code: 'TOOL_NOT_FOUND' };
const OTHERS: Outcome = { toolError: 'APPROVAL_NOT_FOUND' };
const listed = (scoped: boolean): Outcome => ({ ok: true, scoped });
const FORBIDDEN_PERSONA: Outcome = { refused: 403, code: 'FORBIDDEN_PERSONA' };
const UNKNOWN_PERSONA: Outcome = { refused: 404, code: 'UNKNOWN_PERSONA' };

const OPS: Op[] = ['initialize', 'list', 'read', 'write', 'scoped', 'othersApproval'];

/** Every operation of a session the principal may not open with this persona is refused alike. */
const refusedAll = (who: Who, persona: string, outcome: Outcome): Row[] => OPS.map((op): Row => [who, persona, op, outcome]);
/** One session's operations and their outcomes, in OPS order. */
const session = (who: Who, persona: string | undefined, outcomes: Outcome[]): Row[] => OPS.map((op, i): Row => [who, persona, op, outcomes[i]!]);

/** Rows whose outcome is the same over both transports. */
const BOTH: Row[] = [
  // ops-bot: its default persona is ops; the ops notes.append needs no approval
  ...session('ops', undefined, [OK, listed(true), OK, OK, OK, OTHERS]),
  ...session('ops', 'ops', [OK, listed(true), OK, OK, OK, OTHERS]),
  ...refusedAll('ops', 'intern', FORBIDDEN_PERSONA),
  ...refusedAll('ops', 'Ops', UNKNOWN_PERSONA),
  ...refusedAll('ops', 'ops ', UNKNOWN_PERSONA),
  // intern-bot: text.reverse asks first (a policy rule for intern), the shared notes.append too; ops.reverse is not there
  ...session('intern', undefined, [OK, listed(false), PENDING, PENDING, NOT_FOUND, OTHERS]),
  ...session('intern', 'intern', [OK, listed(false), PENDING, PENDING, NOT_FOUND, OTHERS]),
  ...refusedAll('intern', 'ops', FORBIDDEN_PERSONA),
  ...refusedAll('intern', 'Intern', UNKNOWN_PERSONA),
  // the reviewer lists and reads its approvals but calls nothing, and has no persona
  ...session('approver', undefined, [OK, listed(false), FORBIDDEN, FORBIDDEN, FORBIDDEN, OTHERS]),
  ...refusedAll('approver', 'ops', FORBIDDEN_PERSONA),
  ...refusedAll('approver', 'nobody', UNKNOWN_PERSONA),
  // root: every persona but no default, so a session without one serves the shared tools (where notes.append asks
  // first); the HTTP catalog instead shows such a principal every persona's tools (test/server/identity-table.test.ts)
  ...session('admin', undefined, [OK, listed(false), OK, PENDING, NOT_FOUND, OTHERS]),
  ...session('admin', 'ops', [OK, listed(true), OK, OK, OK, OTHERS]),
  ...session('admin', 'intern', [OK, listed(false), PENDING, PENDING, NOT_FOUND, OTHERS]),
  ...refusedAll('admin', 'nobody', UNKNOWN_PERSONA),
];

/**
 * In memory only: no principal is a trusted in-process caller, as before
 * issue 11: its persona is taken as given (a misspelt one is simply a persona
 * without tools of its own), and there is no status tool, so that name is an
 * unknown tool.
 */
const IN_MEMORY: Row[] = [
  ...session('none', undefined, [OK, listed(false), OK, PENDING, NOT_FOUND, NOT_FOUND]),
  ...session('none', 'ops', [OK, listed(true), OK, OK, OK, NOT_FOUND]),
  ...session('none', 'Ops', [OK, listed(false), OK, PENDING, NOT_FOUND, NOT_FOUND]),
];

/** Over HTTP only: no credentials or a bad token is 401 and an unreachable issuer 503, whatever the operation. */
const HTTP: Row[] = (['none', 'bad', 'down'] as const).flatMap((who) =>
  [undefined, 'ops'].flatMap((persona) => refusedAll(who, persona as string, who === 'down' ? { refused: 503, code: 'AUTH_UNAVAILABLE' } : { refused: 401, code: 'UNAUTHENTICATED' })),
);

const TABLE: Array<[Transport, ...Row]> = [
  ...BOTH.flatMap((row): Array<[Transport, ...Row]> => [['http', ...row], ['in-memory', ...row]]),
  ...IN_MEMORY.map((row): [Transport, ...Row] => ['in-memory', ...row]),
  ...HTTP.map((row): [Transport, ...Row] => ['http', ...row]),
];

/** An approval asked for by someone else (a caller none of the rows is). */
const STRANGER: Principal = { id: 'stranger', roles: ['caller'], personas: ['intern'], via: 'api-key' };

let api: IdentityApi;
let handler: McpHttpHandler;
let othersApproval: string;
let seq = 0;

beforeAll(async () => {
  api = await identityApi({}, { mcp: (request, context) => handler(request, context) });
  // every row opens a session: the caps are not what this table tests (test/mcp/http-identity.test.ts does)
  handler = mcpHttpHandler({ registry: api.registry, runtime: api.runtime, sessions: { maxPerPrincipal: 1000, maxTotal: 1000 } });
  const r = await api.runtime.call('notes.append', { line: 'the stranger asks' }, { principal: STRANGER });
  if (r.status !== 'pending_approval') throw new Error('notes.append should need approval');
  othersApproval = r.approval.id;
});
afterAll(async () => {
  await handler.close();
  await api.close();
  cleanFolders();
});

const principalOf = (who: Who): Principal | undefined => (PRINCIPALS as Record<string, Principal>)[who];

/** A connected client, or how the session was refused; `close` ends the session. */
async function open(transport: Transport, who: Who, persona: string | undefined): Promise<{ client: Client; close(): Promise<void> } | Outcome> {
  const client = new Client({ name: 'identity-table', version: '1.0.0' });
  if (transport === 'in-memory') {
    const principal = principalOf(who);
    let gateway: Gateway;
    try {
      gateway = createGatewayServer({ registry: api.registry, runtime: api.runtime, ...(principal ? { principal } : {}), ...(persona !== undefined ? { persona } : {}) });
    } catch (error) {
      if (error instanceof CallError) return { refused: callErrorWire(error).status, code: error.code };
      throw error;
    }
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.server.connect(serverSide);
    await client.connect(clientSide);
    return { client, close: async () => (await client.close(), await gateway.close()) };
  }
  const url = new URL(`/mcp${persona !== undefined ? `?persona=${encodeURIComponent(persona)}` : ''}`, BASE);
  const http = new StreamableHTTPClientTransport(url, { fetch: async (input, init) => api.app.fetch(new Request(input, init)), requestInit: { headers: bearer(who) } });
  try {
    await client.connect(http);
  } catch (error) {
    if (!(error instanceof StreamableHTTPError)) throw error;
    // the answer's body (a problem, or a JSON-RPC error whose data names the code) is in the message
    return { refused: error.code ?? 0, code: /"code":"(\w+)"/.exec(error.message)?.[1] ?? error.message };
  }
  return { client, close: async () => (await http.terminateSession(), await client.close()) };
}

/** The outcome of one tools/call. */
async function callOutcome(client: Client, name: string, args: Record<string, unknown>): Promise<Outcome> {
  try {
    const r = await client.callTool({ name, arguments: args });
    return r.isError ? { toolError: String(errorMeta(r)['code']) } : OK;
  } catch (error) {
    if (error instanceof McpError) return { rpc: error.code, code: String((error.data as { code?: unknown } | undefined)?.code) };
    throw error;
  }
}

/** Run one operation in an open session. */
async function run(client: Client, op: Op, who: Who): Promise<Outcome> {
  switch (op) {
    case 'initialize':
      return OK;
    case 'list': {
      const names = (await listAll(client)).tools.map((t) => t.name);
      // the gateway's own status tool is there exactly when there is a principal
      expect(names.includes(APPROVAL_STATUS_TOOL), 'status tool listed').toBe(principalOf(who) !== undefined);
      return { ok: true, scoped: names.includes('ops.reverse') };
    }
    case 'read':
      return callOutcome(client, 'text.reverse', { text: `row ${++seq}` });
    case 'write':
      return callOutcome(client, 'notes.append', { line: `row ${++seq}` });
    case 'scoped':
      return callOutcome(client, 'ops.reverse', { text: `row ${++seq}` });
    case 'othersApproval':
      return callOutcome(client, APPROVAL_STATUS_TOOL, { approvalId: othersApproval });
  }
}

describe('principal x role x persona x MCP operation -> outcome, over both transports', () => {
  it('has every kind of caller and operation on both transports', () => {
    for (const transport of ['http', 'in-memory'] as const) {
      const rows = TABLE.filter(([t]) => t === transport);
      for (const who of ['ops', 'intern', 'approver', 'admin', 'none'] as const) expect(rows.some(([, w]) => w === who), `${transport} ${who}`).toBe(true);
      for (const op of OPS) expect(rows.some(([, , , o]) => o === op), `${transport} ${op}`).toBe(true);
    }
    expect(TABLE.length).toBe(2 * BOTH.length + IN_MEMORY.length + HTTP.length);
  });

  it.each(TABLE.map(([transport, who, persona, op, outcome]) => [transport, who, principalOf(who)?.roles.join(',') ?? 'no principal', persona ?? '-', op, JSON.stringify(outcome), { transport, who, persona, op, outcome }] as const))(
    '%s: %s (%s) as persona %j: %s -> %s',
    async (_t, _w, _roles, _p, _o, _e, { transport, who, persona, op, outcome }) => {
      const opened = await open(transport, who, persona);
      if (!('client' in opened)) {
        expect(opened).toEqual(outcome);
        return;
      }
      try {
        expect(await run(opened.client, op, who)).toEqual(outcome);
      } finally {
        await opened.close();
      }
    },
  );

  it('leaves no HTTP session open', () => {
    expect(handler.sessionCount).toBe(0);
  });
});
