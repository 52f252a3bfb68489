/**
 * Reading capability manifests (one tool object, or an array of them) into
 * canonical tools. Every value is checked where it stands in the source;
 * whatever has no canonical home is kept in `extensions.capability`.
 * @module
 */
import { splitPointer } from '../../model/diagnostics.js';
import { compact, compactRequired } from '../../model/objects.js';
import type { Auth, Effects, Execution, JsonSchema, Tool } from '../../model/schema.js';
import { COST_LANES, MODES, RETRY_CLASSES, REVERSIBILITY, type Mode, type Reversibility, type SideEffect } from '../../model/vocabulary.js';
import { isPlainObject, jsonType, ObjectReader } from '../../source/reader.js';
import type { ImportContext, ImportedDocument, Located } from '../types.js';
import { arrayDocumentBundle, CAPABILITY, toExtension, keepAt, type CapabilityExtension } from './extension.js';

/** What reading one entry collects besides the canonical values. */
interface EntryState {
  /** Pointer of the entry, to place kept fields relative to it. */
  readonly pointer: string;
  readonly ext: CapabilityExtension;
  readonly derived: string[];
}

/** The canonical parts read from `capabilities`. */
type CapabilityParts = Pick<Tool, 'effects' | 'auth' | 'approval' | 'cost' | 'latency' | 'execution' | 'observability' | 'alternatives'>;

/** Import one parsed capability manifest document. */
export function importCapability(context: ImportContext): ImportedDocument {
  const doc = context.file.value;
  const result: ImportedDocument = { tools: [], skills: [], agents: [], jobs: [] };
  const add = (entry: Located<Tool> | undefined) => {
    if (entry) result.tools.push(entry);
  };
  if (Array.isArray(doc)) {
    result.bundle = arrayDocumentBundle();
    doc.forEach((entry, i) => add(readEntry(context, entry, `/${i}`)));
  } else if (isPlainObject(doc)) {
    add(readEntry(context, doc, ''));
  } else {
    context.report('TYPE_MISMATCH', `A capability manifest must be an object or an array of objects, not ${jsonType(doc)}.`, '', {
      hint: 'Start the file with "name:" (one tool) or "- name:" (a list of tools).',
    });
  }
  return result;
}

function readEntry(context: ImportContext, value: unknown, pointer: string): Located<Tool> | undefined {
  const entry = ObjectReader.of(context, value, pointer, 'A capability manifest entry');
  if (!entry) return undefined;
  const name = readName(entry);
  if (name === undefined) return undefined;
  const state: EntryState = { pointer, ext: { fields: {}, syntax: {} }, derived: [] };
  const description = entry.string('summary');
  const schema = readInputSchema(entry, state);
  const caps = entry.object('capabilities');
  const parts: CapabilityParts = caps ? readCapabilities(caps, state) : {};
  keepRest(entry, state, 'a capability manifest');
  const extension = toExtension(state.ext);
  const tool = compactRequired<Tool>({
    name,
    description,
    ...schema,
    ...parts,
    derived: state.derived.length > 0 ? state.derived : undefined,
    extensions: extension ? { [CAPABILITY]: extension } : undefined,
  });
  return { value: tool, pointer };
}

/** The tool name; an entry without a usable one is reported and skipped. */
function readName(entry: ObjectReader): string | undefined {
  if (!entry.has('name')) {
    entry.context.report('MISSING_FIELD', 'This manifest has no "name"; it is skipped.', entry.pointer, {
      field: 'name',
      hint: 'Add a name such as "github.create_pull_request".',
    });
    return undefined;
  }
  const name = entry.string('name');
  if (name === '') {
    entry.context.report('MISSING_FIELD', 'The "name" is empty; this manifest is skipped.', entry.at('name'), {
      hint: 'Give the tool a lowercase dotted name such as "github.create_pull_request".',
    });
    return undefined;
  }
  return name;
}

/**
 * `inputSchemaRef` is loaded relative to the manifest and kept, so export can
 * write the reference back. An inline `inputSchema` is accepted too; when
 * both are written the inline one is what the manifest states, but the
 * reference is still read so a broken path is reported.
 */
function readInputSchema(entry: ObjectReader, state: EntryState): Pick<Tool, 'inputSchema' | 'inputSchemaRef'> {
  const ref = entry.string('inputSchemaRef');
  const inline = asJsonSchema(entry, entry.raw('inputSchema'), entry.at('inputSchema'), '"inputSchema"');
  const loaded = ref === undefined ? undefined : loadSchema(entry, ref);
  if (ref !== undefined && inline !== undefined) state.ext.syntax.inlineInputSchema = true;
  return compactRequired<Pick<Tool, 'inputSchema' | 'inputSchemaRef'>>({ inputSchemaRef: ref, inputSchema: inline ?? loaded });
}

function loadSchema(entry: ObjectReader, ref: string): JsonSchema | undefined {
  const pointer = entry.at('inputSchemaRef');
  const value = entry.context.readRelative(ref, pointer);
  return value === undefined ? undefined : asJsonSchema(entry, value, pointer, `The file "${ref}"`);
}

/** A JSON Schema is an object or a boolean; anything else is reported and dropped. */
function asJsonSchema(entry: ObjectReader, value: unknown, pointer: string, what: string): JsonSchema | undefined {
  if (value === undefined) return undefined;
  if (isPlainObject(value) || typeof value === 'boolean') return value;
  entry.context.report('TYPE_MISMATCH', `${what} must hold a JSON Schema (an object), not ${jsonType(value)}.`, pointer, {
    hint: 'Use an object with "type": "object" and "properties".',
  });
  return undefined;
}

function readCapabilities(caps: ObjectReader, state: EntryState): CapabilityParts {
  const mode = caps.enumValue('mode', MODES);
  const effects = readGroup(caps, 'sideEffects', state, (side) => readEffects(side, mode, state));
  const access = readGroup(caps, 'auth', state, readAuth) ?? {};
  const cost = readGroup(caps, 'cost', state, (r) =>
    compact<NonNullable<Tool['cost']>>({ lane: r.enumValue('lane', COST_LANES), estimatedDollars: r.number('estimatedDollars', { min: 0 }) }),
  );
  const latency = readGroup(caps, 'latency', state, (r) =>
    compact<NonNullable<Tool['latency']>>({ p50Ms: r.number('p50Ms', { min: 0 }), p95Ms: r.number('p95Ms', { min: 0 }) }),
  );
  const execution = readGroup(caps, 'reliability', state, (r) =>
    compact<Execution>({ idempotent: r.boolean('idempotent'), retryClass: r.enumValue('retryClass', RETRY_CLASSES) }),
  );
  const observability = readGroup(caps, 'observability', state, (r) =>
    compact<NonNullable<Tool['observability']>>({ traceAttrs: r.strings('emitTraceAttrs') }),
  );
  const alternatives = caps.strings('alternatives');
  keepRest(caps, state, 'capabilities');
  // Without a sideEffects group, mode still stands on its own.
  const modeOnly = effects === undefined && mode !== undefined ? { mode } : undefined;
  return compactRequired<CapabilityParts>({
    effects: effects ?? modeOnly,
    ...access,
    cost,
    latency,
    execution,
    observability,
    alternatives,
  });
}

/** Read one nested group object with `read`, then keep its unknown fields. */
function readGroup<T>(parent: ObjectReader, key: string, state: EntryState, read: (group: ObjectReader, state: EntryState) => T): T | undefined {
  const group = parent.object(key);
  if (!group) return undefined;
  const value = read(group, state);
  keepRest(group, state, `capabilities.${key}`);
  return value;
}

function readEffects(side: ObjectReader, mode: Mode | undefined, state: EntryState): Effects | undefined {
  const external = side.boolean('external');
  const reversible = readReversible(side, state);
  const rollbackHint = side.string('rollbackHint');
  const sideEffects = sideEffectOf(external, mode);
  if (sideEffects !== undefined) state.derived.push('effects.sideEffects');
  return compact<Effects>({ mode, sideEffects, external, reversible, rollbackHint });
}

/**
 * The ATLAS category implied by `external` and `mode`. Without a mode nothing
 * is inferred here: the loader derives mode and side effects together.
 */
function sideEffectOf(external: boolean | undefined, mode: Mode | undefined): SideEffect | undefined {
  if (external === false) return 'none';
  if (external !== true || mode === undefined) return undefined;
  return mode === 'read' ? 'read_external_service' : 'write';
}

/** `reversible` is full | partial | none; booleans are read as full / none and their spelling kept. */
function readReversible(side: ObjectReader, state: EntryState): Reversibility | undefined {
  const raw = side.raw('reversible');
  if (typeof raw === 'boolean') {
    state.ext.syntax.reversibleBoolean = true;
    return raw ? 'full' : 'none';
  }
  return side.enumValue('reversible', REVERSIBILITY);
}

/** `auth` carries both the credential scope and the approval flag. */
function readAuth(auth: ObjectReader, state: EntryState): Pick<Tool, 'auth' | 'approval'> {
  const scopes = readScopes(auth, state);
  const required = auth.boolean('humanApprovalRequired');
  return compactRequired<Pick<Tool, 'auth' | 'approval'>>({
    auth: compact<Auth>({ scopes }),
    approval: compact<NonNullable<Tool['approval']>>({ required }),
  });
}

/** `scope` is a string (one scope) or a list; a one-element list is remembered as such. */
function readScopes(auth: ObjectReader, state: EntryState): string[] | undefined {
  const raw = auth.raw('scope');
  if (raw === undefined) return undefined;
  if (typeof raw === 'string') return [raw];
  if (Array.isArray(raw)) {
    if (raw.length === 1) state.ext.syntax.scopeList = true;
    return auth.strings('scope');
  }
  auth.context.report('TYPE_MISMATCH', `"scope" must be a string or an array of strings, not ${jsonType(raw)}.`, auth.at('scope'), {
    hint: 'Write one scope as "scope: repo", several as a list.',
  });
  return undefined;
}

/**
 * Report the fields `reader` did not read and keep them, nested as in the
 * source. An empty group is kept as `{}` so it comes back on export.
 */
function keepRest(reader: ObjectReader, state: EntryState, where: string): void {
  const path = splitPointer(reader.pointer.slice(state.pointer.length));
  const rest = reader.rest({ where });
  if (rest) keepAt(state.ext.fields, path, rest);
  else if (path.length > 0 && Object.keys(reader.value).length === 0) keepAt(state.ext.fields, path, {});
}
