/**
 * The Xena registry dialect. (Stub: being written.)
 * @module
 */
import { defineDialect } from './types.js';

export const xenaDialect = defineDialect({
  id: 'xena',
  title: 'Xena registry',
  detect: () => 0,
  import: () => ({ tools: [], skills: [], agents: [], jobs: [] }),
  export: () => [],
  fieldMap: {},
});
