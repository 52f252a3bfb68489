/**
 * The route table entries of the learned tools (`PUT /tools/{name}`,
 * `DELETE /tools/{name}`, `GET /tools/learned`), kept here so the route
 * table only lists them.
 * @module
 */
import { json, param, pathParam, type Json } from './openapi-parts.js';

const LEARNED_TOOL: Json = {
  type: 'object',
  required: ['id', 'dialect', 'writtenBy', 'createdAt', 'updatedAt'],
  properties: { id: { type: 'string' }, dialect: { type: 'string' }, writtenBy: { type: 'string' }, createdAt: { type: 'string' }, updatedAt: { type: 'string' } },
};
const WRITE: Json = {
  type: 'object',
  required: ['tool', 'reload'],
  properties: {
    tool: LEARNED_TOOL,
    reload: { type: 'object', properties: { kind: { type: 'string' }, version: { type: 'integer' } } },
    findings: { type: 'array', items: { type: 'object', additionalProperties: true } },
  },
};
const dialect = param('dialect', 'The dialect of the entry (or the Toolcap-Dialect header): toolcap (default) or xena.', { type: 'string', enum: ['toolcap', 'xena'] });

/** The learned-tool operations, by route table key. */
export const LEARNED_ROUTES = {
  upsertTool: {
    method: 'PUT', action: 'tools.write', path: '/tools/{name}',
    summary: 'Write a learned tool: one tool entry, judged like a manifest entry, kept in the store as the learned layer and served after a reload',
    parameters: [pathParam('name'), dialect],
    requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', additionalProperties: true, description: 'One tool entry in the dialect named; its id (name, Xena id) is the path\'s.' } } } },
    responses: { '200': json(WRITE, 'Kept and served.') },
    problems: ['NOT_READY', 'BAD_PARAMETER', 'BAD_BODY', 'INVALID_TOOL', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'NO_RUNTIME', 'STORE_UNAVAILABLE'],
  },
  forgetTool: {
    method: 'DELETE', action: 'tools.write', path: '/tools/{name}', summary: 'Forget a learned tool (tools from files cannot be deleted)',
    parameters: [pathParam('name')],
    responses: { '200': json(WRITE, 'Forgotten; the catalog reloaded.') },
    problems: ['NOT_READY', 'TOOL_NOT_FOUND', 'NO_RUNTIME', 'STORE_UNAVAILABLE'],
  },
  learnedTools: {
    method: 'GET', action: 'list', path: '/tools/learned', summary: 'The learned tools kept in the store, by id (a tool named "learned" is read at /tools/learned only through /tools?q=)',
    responses: { '200': json({ type: 'object', properties: { tools: { type: 'array', items: LEARNED_TOOL } } }, 'Learned tools.') },
    problems: ['NO_RUNTIME'],
  },
} as const; // checked as routes where route-table.ts spreads them into ROUTES (no import back: no cycle)
