/**
 * The GC-Forged-Pylot tool manifest dialect. (Stub: being written.)
 * @module
 */
import { defineDialect } from './types.js';

export const pylotDialect = defineDialect({
  id: 'pylot',
  title: 'GC-Forged-Pylot tool manifest',
  detect: () => 0,
  import: () => ({ tools: [], skills: [], agents: [], jobs: [] }),
  export: () => [],
  fieldMap: {},
});
