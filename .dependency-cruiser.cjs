/**
 * The import rule of docs/architecture.md, checked in `npm test`
 * (test/architecture/layers.test.ts) and by `npm run lint:layers`.
 *
 * The folders of src/ are the stages of the flow, in this order; a module may
 * import only from its own folder or from folders before it in the list.
 */
const LAYERS = ['model', 'source', 'dialects', 'load', 'validate', 'registry', 'query', 'drift', 'store', 'runtime', 'mcp', 'server', 'config', 'host', 'adapters', 'cli'];

/** `src/<layer>/…` or `src/<layer>.ts` (host.ts is a layer of one file). */
const path = (layer) => `^src/${layer}(/|\\.ts$)`;

/** One rule per layer: nothing it imports may come from a later layer. */
const againstTheFlow = LAYERS.map((layer, i) => ({
  name: `layer-order:${layer}`,
  comment: `src/${layer} may import only from ${LAYERS.slice(0, i + 1).join(', ')} (docs/architecture.md).`,
  severity: 'error',
  from: { path: path(layer) },
  to: { path: LAYERS.slice(i + 1).map(path) },
}));

module.exports = {
  forbidden: [
    ...againstTheFlow.filter((rule) => rule.to.path.length > 0),
    {
      name: 'no-cycles',
      comment: 'Modules import each other in one direction only.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'cli-is-a-leaf',
      comment: 'The command line is thin over the host and the library: nothing in src/ imports it (bin/ does).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'src-never-imports-tests',
      comment: 'Library code does not depend on tests, fixtures or benchmarks.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'unknown-folder',
      comment: `Every module lives in one of the layers (${LAYERS.join(', ')}) or is src/index.ts or a subpath entry.`,
      severity: 'error',
      from: { path: '^src/', pathNot: [...LAYERS.map(path), '^src/(index|entries/[^/]+)\\.ts$'] },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.mjs', '.json'] },
    moduleSystems: ['es6'],
  },
};
