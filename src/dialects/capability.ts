/**
 * The capability manifest YAML dialect. (Stub: being written.)
 * @module
 */
import { defineDialect } from './types.js';

export const capabilityDialect = defineDialect({
  id: 'capability',
  title: 'capability manifest YAML',
  detect: () => 0,
  import: () => ({ tools: [], skills: [], agents: [], jobs: [] }),
  export: () => [],
  fieldMap: {},
});
