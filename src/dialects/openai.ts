/**
 * The OpenAI function tools dialect. (Stub: being written.)
 * @module
 */
import { defineDialect } from './types.js';

export const openaiDialect = defineDialect({
  id: 'openai',
  title: 'OpenAI function tools',
  detect: (_value: unknown, _hints: unknown) => 0,
  import: () => ({ tools: [], skills: [], agents: [], jobs: [] }),
  export: () => [],
  fieldMap: {},
});
