/**
 * The Shinkai tool metadata dialect. (Stub: being written.)
 * @module
 */
import { defineDialect } from './types.js';

export const shinkaiDialect = defineDialect({
  id: 'shinkai',
  title: 'Shinkai tool metadata',
  detect: () => 0,
  import: () => ({ tools: [], skills: [], agents: [], jobs: [] }),
  export: () => [],
  fieldMap: {},
});
