/**
 * The Shinkai tool metadata dialect: one `metadata.json` per tool folder,
 * describing one tool (name, keywords, configurations, parameters, result,
 * SQL tables and queries, helper tools, OAuth services).
 *
 * The parts live in `./shinkai/`: import, export, detection, OAuth and the
 * extension layout. See docs/dialects/shinkai.md for the mapping.
 * @module
 */
import { defineDialect } from './types.js';
import { detectShinkai } from './shinkai/detect.js';
import { exportShinkai } from './shinkai/export.js';
import { importShinkai } from './shinkai/import.js';

/**
 * Shinkai tool metadata, in and out.
 * @example
 * shinkaiDialect.detect({ name: 'Coin Flip', tool_type: 'typescript', parameters: { type: 'object' } }, { path: 'coin/metadata.json' }) // > 0.5
 */
export const shinkaiDialect = defineDialect({
  id: 'shinkai',
  title: 'Shinkai tool metadata',
  detect: detectShinkai,
  import: importShinkai,
  export: exportShinkai,
  // Derived fields point at the source field they were inferred from.
  fieldMaps: {
    tool: {
      id: '/id',
      name: '/name',
      title: '/name',
      version: '/version',
      description: '/description',
      author: '/author',
      homepage: '/homepage',
      tags: '/keywords',
      'implementation.language': '/tool_type',
      license: '/license',
      configSchema: '/configurations',
      inputSchema: '/parameters',
      outputSchema: '/result',
      'storage.sqlTables': '/sqlTables',
      'storage.sqlQueries': '/sqlQueries',
      uses: '/tools',
      'auth.oauth': '/oauth',
      'auth.type': '/oauth',
      'auth.required': '/oauth',
      'auth.scopes': '/oauth',
    },
  },
});
