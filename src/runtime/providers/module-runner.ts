/**
 * From a module's namespace to the function a call runs: the export may be a
 * function `(args, ctx) => result`, a class whose instances have a `run` or
 * `call` method (instantiated once), or an object with a `run` or `call`
 * method. CommonJS named exports Node could not detect are read off
 * `default`.
 *
 * The two functions here are self-contained (no imports, no outside names)
 * because the worker runs their source text too (module-worker.ts sends
 * `prepareRunner.toString()`): one definition for the inline and the worker
 * path.
 * @module
 */

/** The function one call runs. */
export type Runner = (args: Record<string, unknown>, context: unknown) => unknown;

/** A runnable export, or why the export cannot be run (a config problem: nothing ran). */
export type Prepared = { run: Runner } | { problem: string };

/**
 * Look `name` up in a module namespace; with it, the list of the namespace's
 * exports for messages.
 * @example exportOf({ default: { add } }, 'add') // { value: add, exports: 'default' }
 */
export function exportOf(namespace: Record<string, unknown>, name: string): { value: unknown; exports: string } {
  const names = Object.keys(namespace);
  const exports = names.length === 0 ? '(none)' : names.join(', ');
  if (name in namespace) return { value: namespace[name], exports };
  const def = namespace['default'];
  if (name !== 'default' && def !== null && (typeof def === 'object' || typeof def === 'function')) {
    return { value: (def as Record<string, unknown>)[name], exports };
  }
  return { value: undefined, exports };
}

/**
 * Turn export `exportName` of `namespace` (module `spec`) into a runner, or
 * say why it cannot be one. `lookup` is {@link exportOf} (passed in, so this
 * function's source stands alone).
 * @example prepareRunner(await import(url), 'default', './echo.mjs', exportOf)
 */
export function prepareRunner(
  namespace: Record<string, unknown>,
  exportName: string,
  spec: string,
  lookup: typeof exportOf,
): Prepared {
  const describe = `export "${exportName}" of module "${spec}"`;
  const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
  const methodOf = (target: unknown): Runner | undefined => {
    if (target === null || (typeof target !== 'object' && typeof target !== 'function')) return undefined;
    for (const key of ['run', 'call']) {
      const m = (target as Record<string, unknown>)[key];
      // A plain function's own `call` is Function.prototype.call, not a tool method.
      if (typeof m === 'function' && m !== Function.prototype.call) return (m as Runner).bind(target);
    }
    return undefined;
  };
  const { value, exports } = lookup(namespace, exportName);
  if (value === undefined) return { problem: `module "${spec}" has no export "${exportName}" (exports: ${exports})` };
  if (typeof value === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(value))) {
    let instance: unknown;
    try {
      instance = new (value as new () => unknown)();
    } catch (err) {
      return { problem: `${describe}: constructing the class failed: ${messageOf(err)}` };
    }
    const m = methodOf(instance);
    return m ? { run: m } : { problem: `${describe}: instances of the class have no run() or call() method` };
  }
  if (typeof value === 'function') return { run: value as Runner };
  const m = methodOf(value);
  if (m) return { run: m };
  return { problem: `${describe}: is ${value === null ? 'null' : typeof value}, not a function, class or object with run()/call()` };
}
