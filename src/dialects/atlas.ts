/**
 * The ATLAS functions.json dialect. (Stub: being written.)
 * @module
 */
import { defineDialect } from './types.js';

export const atlasDialect = defineDialect({
  id: 'atlas',
  title: 'ATLAS functions.json',
  detect: () => 0,
  import: () => ({ tools: [], skills: [], agents: [], jobs: [] }),
  export: () => [],
  fieldMap: {},
});
