/**
 * The OpenAPI 3.x and Swagger 2.0 dialect. (Stub: being written.)
 * @module
 */
import { defineDialect } from './types.js';

export const openapiDialect = defineDialect({
  id: 'openapi',
  title: 'OpenAPI 3.x and Swagger 2.0',
  detect: (_value: unknown, _hints: unknown) => 0,
  import: () => ({ tools: [], skills: [], agents: [], jobs: [] }),
  export: () => [],
  fieldMap: {},
});
