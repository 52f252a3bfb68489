/**
 * `/mcp` in the OpenAPI document: the MCP gateway's Streamable HTTP
 * endpoint (MCP 2025-03-26 and later). It is no route table entry (the
 * transport answers every method itself, routes/mcp.ts), so it is written
 * here: POST carries JSON-RPC messages, GET opens the session's event
 * stream, DELETE ends the session. Transport errors are JSON-RPC error
 * objects (not problem documents); authentication and the body limit answer
 * problems as every other route does.
 * @module
 */
import { json, type Json } from './openapi-parts.js';
import { openObject } from './openapi-schemas.js';

const session = {
  name: 'Mcp-Session-Id',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: 'The session, from the initialize answer\'s Mcp-Session-Id header; absent only on initialize. A session is used only by the principal that opened it.',
};
const requiredSession = { ...session, required: true, description: 'The session to use.' };
const protocol = { name: 'MCP-Protocol-Version', in: 'header', required: false, schema: { type: 'string', examples: ['2025-06-18'] }, description: 'The protocol version negotiated at initialize.' };
const persona = { name: 'persona', in: 'query', required: false, schema: { type: 'string' }, description: 'On initialize: the persona the session serves (or X-Toolcap-Persona), fixed for the session.' };
const agent = { name: 'agent', in: 'query', required: false, schema: { type: 'string' }, description: 'On initialize: the catalog agent the session serves (or X-Toolcap-Agent), fixed for the session.' };

const rpcError = (description: string): Json => json({ $ref: '#/components/schemas/JsonRpcError' }, description);
const problemAnswer = (description: string): Json => ({ description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } });

/** The schemas `/mcp` refers to. */
export const MCP_SCHEMAS: Json = {
  JsonRpcMessage: {
    type: 'object',
    description: 'A JSON-RPC 2.0 request, notification or response of the MCP protocol (initialize, tools/list, tools/call, ...).',
    required: ['jsonrpc'],
    properties: { jsonrpc: { type: 'string', const: '2.0' }, id: { type: ['string', 'integer'] }, method: { type: 'string' }, params: openObject(), result: openObject(), error: openObject() },
  },
  JsonRpcError: {
    type: 'object',
    required: ['jsonrpc', 'error'],
    properties: {
      jsonrpc: { type: 'string', const: '2.0' },
      id: { type: ['string', 'integer', 'null'] },
      error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} } },
    },
  },
};

/** The `/mcp` path item: POST, GET and DELETE. */
export function mcpPathItem(security: Json[]): Json {
  const common = { security, 'x-required-action': 'list' };
  const denied = { '401': problemAnswer('UNAUTHENTICATED'), '403': problemAnswer('FORBIDDEN, FORBIDDEN_ORIGIN'), '421': problemAnswer('MISDIRECTED_REQUEST') };
  return {
    post: {
      operationId: 'mcpMessage',
      summary: 'Send MCP JSON-RPC messages: initialize opens a session (its id comes back in Mcp-Session-Id), later requests carry it',
      parameters: [session, protocol, persona, agent],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/JsonRpcMessage' }, { type: 'array', items: { $ref: '#/components/schemas/JsonRpcMessage' } }] } } },
      },
      responses: {
        '200': {
          description: 'The JSON-RPC answer (one JSON body; the gateway does not stream POST answers).',
          headers: { 'Mcp-Session-Id': { description: 'On initialize: the new session.', schema: { type: 'string' } } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcMessage' } } },
        },
        '202': { description: 'Notifications and responses accepted (no body).' },
        '400': rpcError('Not JSON, no session and not initialize, or a persona or agent refused at initialize.'),
        ...denied,
        '404': rpcError('Session not found: closed, expired or never opened.'),
        '413': problemAnswer('PAYLOAD_TOO_LARGE'),
        '429': rpcError('TOO_MANY_SESSIONS: the session limit is reached.'),
      },
      ...common,
    },
    get: {
      operationId: 'mcpStream',
      summary: 'Open the session\'s event stream for server-initiated messages (tools/list_changed, elicitation)',
      parameters: [requiredSession, protocol],
      responses: {
        '200': { description: 'Server-sent events, one JSON-RPC message each.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        '400': rpcError('No Mcp-Session-Id.'),
        ...denied,
        '404': rpcError('Session not found.'),
      },
      ...common,
    },
    delete: {
      operationId: 'mcpEndSession',
      summary: 'End the session',
      parameters: [requiredSession, protocol],
      responses: {
        '200': { description: 'The session is closed.' },
        '400': rpcError('No Mcp-Session-Id.'),
        ...denied,
        '404': rpcError('Session not found.'),
      },
      ...common,
    },
  };
}
