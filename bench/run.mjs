// `npm run bench`: every benchmark, each printing absolute figures and ratios
// against a baseline measured in the same run. Not a test: nothing here fails on speed.
import * as consolePages from './console.mjs';
import * as http from './http.mjs';
import * as inference from './inference.mjs';
import * as load from './load.mjs';
import * as mcp from './mcp.mjs';
import * as mcpInbound from './mcp-inbound.mjs';
import * as module from './module.mjs';
import * as openapi from './openapi.mjs';
import * as patterns from './patterns.mjs';
import * as query from './query.mjs';
import * as reload from './reload.mjs';
import * as retrieval from './retrieval.mjs';
import * as router from './router.mjs';
import * as cluster from './cluster.mjs';
import * as observability from './observability.mjs';
import * as scale from './scale.mjs';
import * as schemas from './schemas.mjs';
import * as sessions from './sessions.mjs';

const benches = { load, openapi, inference, retrieval, query, reload, http, router, mcp, 'mcp-inbound': mcpInbound, module, console: consolePages, cluster, observability, schemas, sessions, scale, patterns };
const only = process.argv[2];
for (const [name, bench] of Object.entries(benches)) {
  if (only && only !== name) continue;
  await bench.run();
}
