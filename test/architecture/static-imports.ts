/**
 * What a module loads before any of its code runs: the modules reached from it
 * through static imports only (an `import()` is loaded when it runs, so its
 * target is not counted), read by dependency-cruiser from the sources.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Reached modules: `src/...` paths of our own, and npm package names (`@scope/name`). */
export interface StaticClosure {
  sources: string[];
  packages: string[];
}

type Edges = Map<string, string[]>;
let cruised: Promise<Edges> | undefined;

/**
 * Every module of src/ with its static imports, cruised once per worker: a
 * cruise keeps the worker busy for seconds without a break, so the tests share one.
 */
function sourceEdges(): Promise<Edges> {
  cruised ??= (async () => {
    const previous = process.cwd();
    process.chdir(ROOT);
    let result: ICruiseResult;
    try {
      result = (await cruise(['src'], { tsConfig: { fileName: join(ROOT, 'tsconfig.json') }, tsPreCompilationDeps: false, doNotFollow: { path: 'node_modules' } })).output as ICruiseResult;
    } finally {
      process.chdir(previous);
    }
    // Node's own modules are left out; a package subpath the cruiser could not resolve keeps its bare name
    return new Map(result.modules.map((m) => [m.source, m.dependencies.filter((d) => !d.dependencyTypes.includes('dynamic-import') && !d.coreModule).map((d) => d.resolved)]));
  })();
  return cruised;
}

/** The static-import closure of `entry` (a path from the repository root, e.g. `src/index.ts`). */
export async function staticClosure(entry: string): Promise<StaticClosure> {
  const edges = await sourceEdges();
  if (!edges.has(entry)) throw new Error(`${entry} is not a module of src/`);
  const reached = new Set([entry]);
  const queue = [entry];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    for (const to of edges.get(next) ?? []) if (!reached.has(to)) (reached.add(to), queue.push(to));
  }
  const all = [...reached];
  return {
    sources: all.filter((s) => s.startsWith('src/')).sort(),
    packages: [...new Set(all.filter((s) => !s.startsWith('src/')).map((s) => s.replace(/^(node_modules\/)?((@[^/]+\/)?[^/]+).*$/, '$2')))].sort(),
  };
}
