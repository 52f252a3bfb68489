/**
 * Xena webhook workflow routes (`metadata.workflowRoutes`): which Temporal
 * workflow an inbound event signals, and whether it may start one.
 * @module
 */
import { joinPointer } from '../../model/diagnostics.js';
import { compactRequired } from '../../model/objects.js';
import type { Tool } from '../../model/schema.js';
import { ObjectReader } from '../../source/reader.js';
import { requireKeys, type JsonObject } from './base.js';

type WorkflowRoute = NonNullable<Tool['workflowRoutes']>[number];

/** `signalWithStart` starts the workflow when needed; `signalOnly` signals a running one. */
const DISPATCH_MODES = ['signalWithStart', 'signalOnly'] as const;
/** `agentmail` builds AgentMail start arguments; `none` starts without arguments. */
const BOOTSTRAP_MODES = ['agentmail', 'none'] as const;
/** Xena refuses a route without these at startup. */
const ROUTE_REQUIRED = ['workflowType', 'workflowName', 'signalName'] as const;

/**
 * The routes of one tool's metadata. `leftovers` lines up with `routes`
 * (unknown route fields, `{}` where a route has none), or is undefined when
 * no route has any.
 */
export function readWorkflowRoutes(metadata: ObjectReader): { routes?: WorkflowRoute[]; leftovers?: JsonObject[] } {
  const list = metadata.array('workflowRoutes');
  if (list === undefined) return {};
  const routes: WorkflowRoute[] = [];
  const leftovers: JsonObject[] = [];
  list.forEach((item, i) => {
    const r = ObjectReader.of(metadata.context, item, joinPointer(metadata.at('workflowRoutes'), i), 'A workflow route');
    if (!r) return;
    requireKeys(r, ROUTE_REQUIRED, 'The workflow route');
    routes.push(
      compactRequired<WorkflowRoute>({
        workflowType: r.string('workflowType'),
        workflowName: r.string('workflowName'),
        signalName: r.string('signalName'),
        dispatchMode: r.enumValue('dispatchMode', DISPATCH_MODES),
        bootstrap: r.enumValue('bootstrap', BOOTSTRAP_MODES),
      }),
    );
    leftovers.push(r.rest({ where: 'workflow route' }) ?? {});
  });
  return { routes, ...(leftovers.some((l) => Object.keys(l).length > 0) ? { leftovers } : {}) };
}
