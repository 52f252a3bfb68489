/**
 * The MCP tools/list dialect. (Stub: being written.)
 * @module
 */
import { defineDialect } from './types.js';

export const mcpDialect = defineDialect({
  id: 'mcp',
  title: 'MCP tools/list',
  detect: (_value: unknown, _hints: unknown) => 0,
  import: () => ({ tools: [], skills: [], agents: [], jobs: [] }),
  export: () => [],
  fieldMap: {},
});
