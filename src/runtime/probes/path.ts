/**
 * The small path syntax of probe mappings (`metadata.probe`): where in a
 * tool's result the task list is, and where each field is in one task. No
 * wildcards, filters or expressions (nothing is evaluated):
 *
 * ```
 * path    := ['$'] segment*        a leading `$` is the value itself
 * segment := '.' key               a key: any characters but . [ ] and blanks
 *          | '[' integer ']'       an array index; negative counts from the end
 *          | '[' quoted ']'        a key in '…' or "…" (may hold dots)
 * ```
 *
 * Without `$` the first segment needs no dot: `assignee.name` is
 * `$.assignee.name`. `$` alone (or the empty path) is the value itself.
 * @module
 */

/** One step of a parsed path: a key of an object, or an index of an array. */
export type PathStep = { key: string } | { index: number };

/** A path that does not follow the syntax; `offset` is where it goes wrong. */
export class ProbePathError extends Error {
  override readonly name = 'ProbePathError' as const;
  constructor(
    readonly path: string,
    readonly offset: number,
    message: string,
  ) {
    super(`path "${path}" at ${offset}: ${message}`);
  }
}

const KEY = /^[^.[\]\s]+/;

/**
 * Parse a path; throws {@link ProbePathError}.
 * @example parsePath('$.issues[0].title') // [{ key: 'issues' }, { index: 0 }, { key: 'title' }]
 */
export function parsePath(path: string): PathStep[] {
  const steps: PathStep[] = [];
  let i = 0;
  if (path.startsWith('$')) i = 1;
  else if (path !== '') {
    const first = KEY.exec(path);
    if (!first) throw new ProbePathError(path, 0, 'expected a key, "$" or "["');
    steps.push({ key: first[0] });
    i = first[0].length;
  }
  while (i < path.length) {
    const ch = path[i];
    if (ch === '.') {
      const m = KEY.exec(path.slice(i + 1));
      if (!m) throw new ProbePathError(path, i + 1, 'expected a key after "."');
      steps.push({ key: m[0] });
      i += 1 + m[0].length;
    } else if (ch === '[') {
      const close = path.indexOf(']', i);
      if (close < 0) throw new ProbePathError(path, i, 'unclosed "["');
      const inner = path.slice(i + 1, close);
      const quoted = /^'([^']*)'$|^"([^"]*)"$/.exec(inner);
      if (quoted) steps.push({ key: quoted[1] ?? quoted[2] ?? '' });
      else if (/^-?\d{1,9}$/.test(inner)) steps.push({ index: Number(inner) });
      else throw new ProbePathError(path, i + 1, 'expected an integer or a quoted key inside "[...]"');
      i = close + 1;
    } else {
      throw new ProbePathError(path, i, `unexpected "${ch}"`);
    }
  }
  return steps;
}

/**
 * The value at `steps` in `value`, or undefined when any step is missing.
 * Only own properties are read (`__proto__`, `constructor` find nothing).
 * @example readPath({ a: [{ b: 1 }] }, parsePath('a[0].b')) // 1
 */
export function readPath(value: unknown, steps: readonly PathStep[]): unknown {
  let at = value;
  for (const step of steps) {
    if ('index' in step) {
      if (!Array.isArray(at)) return undefined;
      at = at[step.index < 0 ? at.length + step.index : step.index];
    } else {
      if (at === null || typeof at !== 'object' || Array.isArray(at) || !Object.hasOwn(at, step.key)) return undefined;
      at = (at as Record<string, unknown>)[step.key];
    }
  }
  return at;
}
