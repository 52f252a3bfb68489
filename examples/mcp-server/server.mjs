#!/usr/bin/env node
// The examples' own MCP server (stdio), built only on the official MCP SDK, a
// dependency of toolcap: `npm start` needs nothing from devDependencies. Its
// tools span what toolcap's discovery reads from annotations: reads, a write
// that can be undone, a destructive one, and one that reaches the outside
// world. State lives in memory, per process.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const notes = new Map();
const text = (value) => ({ content: [{ type: 'text', text: value }] });
const object = (properties, required = Object.keys(properties)) => ({ type: 'object', properties, required, additionalProperties: false });

const tools = [
  {
    name: 'echo',
    description: 'Echo back the message it is given.',
    inputSchema: object({ message: { type: 'string', description: 'What to echo' } }),
    annotations: { title: 'Echo', readOnlyHint: true, openWorldHint: false },
    run: ({ message }) => text(`Echo: ${message}`),
  },
  {
    name: 'add',
    description: 'Add two numbers and return the sum.',
    inputSchema: object({ a: { type: 'number' }, b: { type: 'number' } }),
    annotations: { title: 'Add', readOnlyHint: true, openWorldHint: false },
    run: ({ a, b }) => text(`The sum of ${a} and ${b} is ${a + b}.`),
  },
  {
    name: 'current_time',
    description: 'The current time in UTC, as an ISO 8601 timestamp.',
    inputSchema: object({}),
    annotations: { title: 'Current time', readOnlyHint: true, openWorldHint: false },
    run: () => text(new Date().toISOString()),
  },
  {
    name: 'remember',
    description: 'Save a short note under a key, replacing any note with that key.',
    inputSchema: object({ key: { type: 'string', maxLength: 100 }, note: { type: 'string', maxLength: 2000 } }),
    annotations: { title: 'Remember a note', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: ({ key, note }) => (notes.set(key, note), text(`Saved "${key}".`)),
  },
  {
    name: 'recall',
    description: 'Read the note saved under a key.',
    inputSchema: object({ key: { type: 'string' } }),
    annotations: { title: 'Recall a note', readOnlyHint: true, openWorldHint: false },
    run: ({ key }) => (notes.has(key) ? text(notes.get(key)) : { ...text(`No note "${key}".`), isError: true }),
  },
  {
    name: 'forget',
    description: 'Delete the note saved under a key. It cannot be brought back.',
    inputSchema: object({ key: { type: 'string' } }),
    annotations: { title: 'Forget a note', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: ({ key }) => text(notes.delete(key) ? `Forgot "${key}".` : `No note "${key}".`),
  },
];

const server = new Server({ name: 'toolcap-examples', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(({ run: _run, ...tool }) => tool) }));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  const tool = tools.find((t) => t.name === request.params.name);
  if (!tool) return { ...text(`No tool named "${request.params.name}".`), isError: true };
  return tool.run(request.params.arguments ?? {});
});
await server.connect(new StdioServerTransport());
