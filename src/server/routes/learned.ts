/**
 * Learned tools over HTTP (runtime/learned): `PUT /tools/{name}` writes one
 * (422 INVALID_TOOL with findings located in the body when it is not a
 * valid entry; nothing changes then), `DELETE /tools/{name}` forgets one,
 * `GET /tools/learned` lists them. Writing needs the `tools.write` action
 * (admins); the write is audited with the principal. Mounted before the
 * catalog routes, so `/tools/learned` is this list.
 * @module
 */
import { errorMessage } from '../../model/errors.js';
import { InvalidLearnedTool, type LearnedTools } from '../../runtime/learned/learned-tools.js';
import { learnedDialectIds } from '../../runtime/learned/documents.js';
import { StoreUnavailableError } from '../../store/types.js';
import { ALL } from '../../runtime/identity/principal.js';
import { principalOf } from '../auth.js';
import { noStoreJson, routeModule, type ApiContext, type RouteModule } from '../context.js';
import { jsonBody } from '../json-body.js';
import { NO_PERSONA } from '../personas.js';
import { ApiProblem, badParameters, problem } from '../problem.js';
import { ROUTES } from '../route-table.js';

/** The header that may name the entry's dialect instead of `?dialect=`. */
export const DIALECT_HEADER = 'toolcap-dialect';

/** The learned-tool routes, mounted at `/tools`. */
export function learnedRoutes(ctx: ApiContext): RouteModule {
  const { on, ...module } = routeModule('/tools', ctx);
  const learned = (): LearnedTools => {
    const l = ctx.options.learned;
    if (!l) throw new ApiProblem(problem('NO_RUNTIME', 'This server keeps no learned tools (it has no store).'));
    return l;
  };
  const who = (c: Parameters<typeof principalOf>[0]): string => principalOf(c)?.id ?? 'http:anonymous';
  const storeFailure = (error: unknown): never => {
    if (error instanceof StoreUnavailableError) throw new ApiProblem(problem('STORE_UNAVAILABLE', errorMessage(error)));
    throw error;
  };

  // a learned entry may be scoped to personas: its id is listed only to a principal that could see the tool
  on(ROUTES.learnedTools, (c) => {
    const tools = learned().list();
    const principal = principalOf(c);
    if (principal === undefined || principal.personas.includes(ALL)) return noStoreJson({ tools });
    const snap = ctx.registry.snapshot();
    const visible = new Set([...principal.personas, NO_PERSONA].flatMap((p) => snap.toolsFor(p)).map((t) => t.name));
    return noStoreJson({ tools: tools.filter((t) => visible.has(t.id)) });
  });

  on(ROUTES.upsertTool, jsonBody(ctx.maxBodyBytes), async (c) => {
    const name = c.req.param('name') ?? '';
    const params = new URL(c.req.url).searchParams;
    const unknown = [...new Set(params.keys())].filter((k) => k !== 'dialect');
    if (unknown.length > 0) throw badParameters(unknown.map((k) => ({ parameter: k, message: `Unknown parameter "${k}". Known: dialect.` })));
    const dialect = params.get('dialect') ?? c.req.header(DIALECT_HEADER) ?? 'toolcap';
    if (!learnedDialectIds().includes(dialect)) throw badParameters([{ parameter: 'dialect', message: `Learned tools are written in ${learnedDialectIds().join(' or ')}, not "${dialect}".` }]);
    const body = await c.req.text();
    try {
      return noStoreJson(await learned().upsert(name, dialect, body, who(c)));
    } catch (error) {
      if (error instanceof InvalidLearnedTool) throw new ApiProblem(problem('INVALID_TOOL', error.message, { tool: name, dialect, diagnostics: error.findings }));
      return storeFailure(error);
    }
  });

  on(ROUTES.forgetTool, async (c) => {
    const name = c.req.param('name') ?? '';
    try {
      const done = await learned().forget(name, who(c));
      if (!done) throw new ApiProblem(problem('TOOL_NOT_FOUND', `No learned tool "${name}" (tools from manifest files are changed in their files).`));
      return noStoreJson(done);
    } catch (error) {
      return storeFailure(error);
    }
  });

  return module;
}
