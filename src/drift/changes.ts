/**
 * Field-level comparison of two versions of one tool, each change classified
 * as an escalation (the tool may now do more, or more of it unattended), a
 * relaxation (the reverse) or neutral.
 *
 * Severity orders come from the vocabulary, defined once there; this file only
 * says which canonical field follows which order, and which fields are flags
 * or sets whose growth escalates.
 * @module
 */
import { isDerived } from '../model/derive.js';
import { isPlainObject, jsonEqual } from '../model/objects.js';
import type { Tool } from '../model/schema.js';
import { MODES, rank, RETRY_CLASSES, REVERSIBILITY, RISK_LEVELS, SIDE_EFFECTS } from '../model/vocabulary.js';
import { MERGED_GROUPS } from '../registry/merge.js';

/** Classes of a field change, least to most severe. */
export const CHANGE_CLASSES = ['neutral', 'relaxation', 'escalation'] as const;
export type ChangeClass = (typeof CHANGE_CLASSES)[number];

/** One canonical field that differs between the old and the new tool. */
export interface FieldChange {
  /** Canonical dot path, e.g. `effects.mode` or `inputSchema`. */
  field: string;
  class: ChangeClass;
  /** The old value; undefined when the field was absent. */
  old: unknown;
  /** The new value; undefined when the field is absent. */
  new: unknown;
  /** The old value was derived by toolcap, not declared. */
  oldDerived: boolean;
  /** The new value is derived by toolcap, not declared. */
  newDerived: boolean;
  /** What exactly changed, for people: "adds scope \"repo\"", "adds required parameter \"path\"". */
  notes?: string[];
}

/** How one change is classified, with what exactly changed. */
export interface Verdict {
  class: ChangeClass;
  notes?: string[];
}

/** Classifies a change of one field, given two values that differ. */
type Rule = (oldValue: unknown, newValue: unknown) => Verdict;

const NEUTRAL: Verdict = { class: 'neutral' };

/** A field whose vocabulary is ordered least to most restrictive: moving right escalates. */
function ordered(order: readonly string[]): Rule {
  const at = (v: unknown) => rank(order, typeof v === 'string' ? v : undefined);
  return (a, b) => {
    const d = at(b) - at(a);
    return d > 0 ? { class: 'escalation' } : d < 0 ? { class: 'relaxation' } : NEUTRAL;
  };
}

/** A safeguard flag (approval, consent): dropping `true` escalates, adding it relaxes. */
const safeguard: Rule = (a, b) =>
  a === true && b !== true ? { class: 'escalation' } : a !== true && b === true ? { class: 'relaxation' } : NEUTRAL;

/** `enabled`, absent meaning true: enabling escalates, disabling relaxes. */
const enabled: Rule = (a, b) => {
  const was = a !== false;
  const is = b !== false;
  return !was && is ? { class: 'escalation' } : was && !is ? { class: 'relaxation' } : NEUTRAL;
};

function strings(value: unknown, pick: (item: unknown) => unknown = (x) => x): string[] {
  return Array.isArray(value) ? value.map(pick).filter((x): x is string => typeof x === 'string') : [];
}

/** A set that grants something (scopes, permissions, providers): any new member escalates. */
function grows(what: string, pick?: (item: unknown) => unknown): Rule {
  return (a, b) => {
    const before = new Set(strings(a, pick));
    const after = new Set(strings(b, pick));
    const added = [...after].filter((x) => !before.has(x));
    const removed = [...before].filter((x) => !after.has(x));
    const notes = [...added.map((x) => `adds ${what} "${x}"`), ...removed.map((x) => `removes ${what} "${x}"`)];
    const verdict: ChangeClass = added.length > 0 ? 'escalation' : removed.length > 0 ? 'relaxation' : 'neutral';
    return notes.length > 0 ? { class: verdict, notes } : { class: verdict };
  };
}


/**
 * A JSON Schema: neutral, but the changes that break existing callers are
 * named (a parameter newly required, a property removed), at the top level.
 */
const schema: Rule = (a, b) => {
  const props = (s: unknown) => (isPlainObject(s) && isPlainObject(s['properties']) ? Object.keys(s['properties']) : []);
  const required = (s: unknown) => (isPlainObject(s) ? strings(s['required']) : []);
  const oldRequired = new Set(required(a));
  const newProps = new Set(props(b));
  const notes = [
    ...required(b).filter((p) => !oldRequired.has(p)).map((p) => `adds required parameter "${p}"`),
    ...props(a).filter((p) => !newProps.has(p)).map((p) => `removes property "${p}"`),
  ];
  return notes.length > 0 ? { class: 'neutral', notes } : NEUTRAL;
};

/** The fields whose changes are not neutral (or carry notes). Every other field is neutral. */
const RULES: Readonly<Record<string, Rule>> = {
  'effects.sideEffects': ordered(SIDE_EFFECTS),
  'effects.mode': ordered(MODES),
  'effects.reversible': ordered(REVERSIBILITY),
  'effects.risk': ordered(RISK_LEVELS),
  'execution.retryClass': ordered(RETRY_CLASSES),
  'approval.required': safeguard,
  'approval.consent': safeguard,
  enabled,
  'auth.scopes': grows('scope'),
  permissions: grows('permission'),
  providers: grows('provider', (p) => (isPlainObject(p) ? p['name'] : undefined)),
  inputSchema: schema,
  outputSchema: schema,
  configSchema: schema,
};

/** Fields that are identity or bookkeeping, not content to compare. */
const SKIPPED: ReadonlySet<string> = new Set(['name', 'derived']);

/** The class of a change of `field` from `a` to `b`. */
function classifyChange(field: string, a: unknown, b: unknown): Verdict {
  return RULES[field]?.(a, b) ?? NEUTRAL;
}

/**
 * Every canonical field that differs between two versions of one tool, both
 * completed (derived values filled in): the values toolcap enforces are
 * compared, and each side says whether its value was declared or derived.
 * Grouping objects (effects, approval, auth, ...) are compared field by
 * field, like the merge treats them; a value that stays the same but goes from
 * declared to derived (or back) is a neutral change. Escalations come first.
 */
export function compareTools(oldTool: Tool, newTool: Tool): FieldChange[] {
  const a = oldTool as Record<string, unknown>;
  const b = newTool as Record<string, unknown>;
  const changes: FieldChange[] = [];
  const compare = (field: string, va: unknown, vb: unknown) => {
    const oldDerived = isDerived(oldTool, field);
    const newDerived = isDerived(newTool, field);
    if (jsonEqual(va, vb) && oldDerived === newDerived) return;
    const verdict = jsonEqual(va, vb) ? { class: 'neutral' as const, notes: [newDerived ? 'now derived, no longer declared' : 'now declared'] } : classifyChange(field, va, vb);
    changes.push({ field, class: verdict.class, old: va, new: vb, oldDerived, newDerived, ...(verdict.notes ? { notes: verdict.notes } : {}) });
  };
  for (const key of union(Object.keys(a), Object.keys(b))) {
    if (SKIPPED.has(key)) continue;
    const va = a[key];
    const vb = b[key];
    const group = (v: unknown) => v === undefined || isPlainObject(v);
    if (MERGED_GROUPS.has(key) && group(va) && group(vb)) {
      const ga = (va ?? {}) as Record<string, unknown>;
      const gb = (vb ?? {}) as Record<string, unknown>;
      for (const sub of union(Object.keys(ga), Object.keys(gb))) compare(`${key}.${sub}`, ga[sub], gb[sub]);
    } else {
      compare(key, va, vb);
    }
  }
  const severity = (c: FieldChange) => CHANGE_CLASSES.indexOf(c.class);
  return changes.sort((x, y) => severity(y) - severity(x) || (x.field < y.field ? -1 : x.field > y.field ? 1 : 0));
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}
