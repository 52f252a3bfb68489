/**
 * Effects inferred from the HTTP method, tightened by vendor evidence. All of
 * it is inference, so every value set here is listed in `derived`; values an
 * operation declares through `x-toolcap-effects` / `x-toolcap-execution` are
 * kept as declarations and only the rest is inferred (from the declared mode,
 * when there is one).
 *
 * | method | mode | sideEffects | other |
 * | --- | --- | --- | --- |
 * | GET, HEAD, OPTIONS, TRACE | read | read_external_service | execution.idempotent: true |
 * | POST, PATCH | write | write | |
 * | PUT | write | write | execution.idempotent: true |
 * | DELETE | write | write | reversible: none, risk: high |
 *
 * Evidence: GitHub's `x-github.triggersNotification: true` means the call
 * sends notifications to people, which a repeat sends again and nobody can
 * take back: sideEffects becomes `write`, a read becomes `mixed`, and
 * idempotency is not inferred.
 *
 * Words may tighten, never loosen: a GET whose operation is named after a
 * write or destructive verb (Slack's `auth.revoke`, `apps.uninstall`,
 * `users.setPresence`) is read as a write (destructive: not reversible, risk
 * high), and the verb that decided it is returned so the import can say why.
 * A POST named `search` stays a write: only the declaration can loosen.
 * @module
 */
import type { Evidence } from '../../model/evidence.js';
import type { Effects, Execution } from '../../model/schema.js';
import type { Mode } from '../../model/vocabulary.js';
import { isPlainObject } from '../../source/reader.js';
import type { Method } from './document.js';

const READ_METHODS: ReadonlySet<Method> = new Set(['get', 'head', 'options', 'trace']);

/** What inference adds to the declared effects and execution, and which paths it set. */
export interface InferredEffects {
  effects: Effects;
  execution: Execution;
  derived: string[];
  /** The name evidence that made a read method a write, when it did. */
  tightenedBy?: Evidence;
}

/**
 * Fill what the declarations leave open.
 * @example inferEffects('delete', {}, {}, {}).effects // { mode: 'write', sideEffects: 'write', reversible: 'none', risk: 'high' }
 */
export function inferEffects(
  method: Method,
  op: Record<string, unknown>,
  declaredEffects: Effects,
  declaredExecution: Execution,
  nameEvidence?: Evidence,
): InferredEffects {
  const notifies = triggersNotification(op);
  const methodMode: Mode = READ_METHODS.has(method) ? 'read' : 'write';
  // the name may make a read method a write (model/evidence.ts: tighteningEvidence)
  const tightenedBy = methodMode === 'read' && declaredEffects.mode === undefined ? nameEvidence : undefined;
  const mode: Mode = declaredEffects.mode ?? (tightenedBy ? 'write' : notifies && methodMode === 'read' ? 'mixed' : methodMode);
  const reads = mode === 'read';
  const effects: Effects = { ...declaredEffects };
  const execution: Execution = { ...declaredExecution };
  const derived: string[] = [];
  const infer = <K extends keyof Effects>(key: K, value: Effects[K]) => {
    if (effects[key] !== undefined) return;
    effects[key] = value;
    derived.push(`effects.${key}`);
  };
  infer('mode', mode);
  infer('sideEffects', reads && !notifies ? 'read_external_service' : 'write');
  if ((method === 'delete' || tightenedBy?.says === 'destructive') && !reads) {
    infer('reversible', 'none');
    infer('risk', 'high');
  }
  if (execution.idempotent === undefined && !notifies && (reads || (method === 'put' && mode === 'write'))) {
    execution.idempotent = true;
    derived.push('execution.idempotent');
  }
  return { effects, execution, derived, ...(tightenedBy && derived.includes('effects.mode') ? { tightenedBy } : {}) };
}

/** GitHub's marker for operations that notify people. */
function triggersNotification(op: Record<string, unknown>): boolean {
  const github = op['x-github'];
  return isPlainObject(github) && github['triggersNotification'] === true;
}
