/**
 * Tool names for OpenAPI operations. An `operationId` is free text
 * ("repos/get-content", "GetAccount", "find pet by id"); a toolcap name is a
 * lowercase id (`[a-z0-9_][a-z0-9_.-]*`). The rule, applied in order:
 * `/` becomes `.` (it namespaces, as in GitHub's ids), camelCase and
 * PascalCase words are split with `_`, `-` and every other character outside
 * `[a-z0-9_.]` becomes `_`, runs of `_` and `.` collapse, and `_`/`.` are
 * trimmed at both ends of the name and of each dotted segment.
 * @module
 */

/**
 * A toolcap name from an operationId, or undefined when nothing usable is left.
 * @example sanitizeOperationId('repos/get-content') // 'repos.get_content'
 * @example sanitizeOperationId('GetAccountBankAccountsId') // 'get_account_bank_accounts_id'
 */
export function sanitizeOperationId(operationId: string): string | undefined {
  if (/^[a-z0-9]+(_[a-z0-9]+)*$/.test(operationId)) return operationId; // already a name (Slack's ids)
  const words = operationId
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/\//g, '.');
  return tidy(words);
}

/**
 * A name from the method and path when there is no operationId: the method,
 * then each path segment with its braces dropped, joined by `_`.
 * @example nameFromPath('get', '/pets/{petId}') // 'get_pets_petid'
 */
export function nameFromPath(method: string, path: string): string {
  return tidy(`${method}_${path}`.toLowerCase().replace(/[{}]/g, '').replace(/\//g, '_')) ?? method.toLowerCase();
}

/** Replace what a name may not hold, collapse separators and trim them at the edges of each segment. */
function tidy(text: string): string | undefined {
  const name = text
    .replace(/[^a-z0-9.]+/g, '_')
    .replace(/_*\.[._]*/g, '.')
    .replace(/^[._]+|[._]+$/g, '');
  return name === '' ? undefined : name;
}

/**
 * Hands out names unique within one document: the first holder keeps a name,
 * later ones get `_2`, `_3`, ... and the caller reports the collision.
 */
export class UniqueNames {
  readonly #taken = new Set<string>();

  /** Reserve `name` (or the first free variant of it); `renamed` says whether it had to change. */
  claim(name: string): { name: string; renamed: boolean } {
    if (!this.#taken.has(name)) {
      this.#taken.add(name);
      return { name, renamed: false };
    }
    let n = 2;
    while (this.#taken.has(`${name}_${n}`)) n++;
    const unique = `${name}_${n}`;
    this.#taken.add(unique);
    return { name: unique, renamed: true };
  }
}
