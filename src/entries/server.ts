/**
 * `toolcap/server`: the HTTP API over a registry (and a runtime, for calls
 * and approvals), as a Web-standard `fetch` handler, and a listener for it.
 * @example
 * import { createApi, listen } from 'toolcap/server';
 * const server = await listen(createApi(registry, { runtime }), { port: 4317 });
 * @module
 */
export { createApi, etagMatches, MAX_QUERY_LENGTH, MAX_SEARCH_LIMIT } from '../server/app.js';
export type { ApiOptions, ApiAuth } from '../server/app.js';
export { listen } from '../server/listen.js';
export type { ListenOptions, RunningServer } from '../server/listen.js';
export { openApiDocument } from '../server/openapi.js';
export { problem, PROBLEM_CODES, ApiProblem } from '../server/problem.js';
export type { Problem, ProblemCode } from '../server/problem.js';
