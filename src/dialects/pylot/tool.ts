/**
 * One Pylot tool entry into a canonical tool: field translation, Pylot's own
 * validation rules, and effects read off the permissions.
 * @module
 */
import type { Effects, Execution, Tool } from '../../model/schema.js';
import { compact, compactRequired } from '../../model/objects.js';
import { AUDIT_STATUSES, TOOL_NAME_PATTERN } from '../../model/vocabulary.js';
import { ObjectReader } from '../../source/reader.js';
import type { ImportContext, Located } from '../types.js';
import { readFields } from './fields.js';
import { impliedEffects } from './permissions.js';

/** Pylot concurrency words and what they say about running a tool in parallel with itself. */
export const CONCURRENCY = ['serial', 'parallel'] as const;

/** A Python import path: dotted identifiers, optionally package-relative (leading dots). */
const MODULE_PATH = /^\.*[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/;
const PYTHON_IDENTIFIER = /^[A-Za-z_]\w*$/;
const CANONICAL_NAME = new RegExp(TOOL_NAME_PATTERN);

/** Translate the tool at `pointer`; undefined (and reported) when it has no usable name. */
export function importTool(context: ImportContext, entry: unknown, pointer: string): Located<Tool> | undefined {
  const reader = ObjectReader.of(context, entry, pointer, 'A tool entry');
  if (!reader) return undefined;
  const name = readName(reader);
  if (name === undefined) return undefined;

  const description = reader.string('description');
  requireField(reader, 'description', 'Add a short summary of what the tool does.');
  const module = readModule(reader);
  // Pylot modules are Python: the runtime routes them to the `python` provider
  const implementation = compact({ module, export: readClassName(reader), language: module === undefined ? undefined : 'python' });
  const permissions = reader.strings('permissions');
  const inputs = readFields(reader, 'inputs');
  const outputs = readFields(reader, 'outputs');
  const execution = readRuntime(reader);
  const notes = reader.string('notes');
  const auditStatus = reader.enumValue('audit_status', AUDIT_STATUSES);
  const enabled = reader.boolean('enabled');
  // Last: everything not read above is an unknown field.
  const fields = reader.rest({ where: `tool "${name}"` });

  const implied = permissions ? impliedEffects(permissions) : {};
  const derived = [...(implied.sideEffects ? ['effects.sideEffects'] : []), ...(implied.mode ? ['effects.mode'] : [])];
  const requiredFalse = compact({ inputs: inputs.requiredFalse, outputs: outputs.requiredFalse });
  const pylot = compact<Record<string, unknown>>({ fields, requiredFalse });

  const tool = compactRequired<Tool>({
    name,
    description,
    enabled,
    permissions,
    inputSchema: inputs.schema,
    outputSchema: outputs.schema,
    effects: compact<Effects>(implied),
    execution,
    implementation,
    notes,
    auditStatus,
    derived: derived.length > 0 ? derived : undefined,
    extensions: pylot ? { pylot } : undefined,
  });
  return { value: tool, pointer };
}

/**
 * The tool name, or undefined when there is none to use. Pylot names are
 * lowercase alphanumeric with `_` or `-`: a dot, which toolcap allows for
 * namespaces, is flagged here; other pattern breaks are the shared rules' job.
 */
function readName(reader: ObjectReader): string | undefined {
  const had = reader.has('name');
  const name = reader.string('name');
  if (name === undefined || name === '') {
    // A name of the wrong type was already reported as such.
    if (!had || name === '')
      reader.context.report('MISSING_FIELD', 'This tool has no name; it is skipped.', had ? reader.at('name') : reader.pointer, {
        hint: 'Add name: a lowercase identifier such as git_status.',
      });
    return undefined;
  }
  if (name.includes('.') && CANONICAL_NAME.test(name)) {
    reader.context.report('INVALID_TOOL_NAME', `Pylot tool names may not contain dots ("${name}").`, reader.at('name'), {
      severity: 'warning',
      hint: `Use _ or - instead, e.g. "${name.replace(/\./g, '_')}".`,
    });
  }
  return name;
}

/** Report a required Pylot field that is absent (a wrong type is reported by the read). */
function requireField(reader: ObjectReader, key: string, hint: string): void {
  if (!reader.has(key)) reader.context.report('MISSING_FIELD', `Missing required field "${key}".`, reader.pointer, { hint, field: key });
}

function readModule(reader: ObjectReader): string | undefined {
  requireField(reader, 'module', 'Add module: the Python import path of the implementation, e.g. src.bridge.tools.git_status.');
  const module = reader.string('module');
  if (module === undefined || MODULE_PATH.test(module)) return module;
  reader.context.report('INVALID_VALUE', `"${module}" is not an importable module path.`, reader.at('module'), {
    hint: 'Use dotted identifiers (src.bridge.tools.git_status) or a package-relative path (.tools.git_status), not a file path.',
  });
  return undefined;
}

function readClassName(reader: ObjectReader): string | undefined {
  const className = reader.string('class_name');
  if (className === undefined || PYTHON_IDENTIFIER.test(className)) return className;
  reader.context.report('INVALID_VALUE', `"${className}" is not a Python class name.`, reader.at('class_name'), {
    hint: 'Give the bare class name; the module path goes in module.',
  });
  return undefined;
}

/**
 * `runtime` into `execution`. Keys other than the timeout and concurrency
 * are resource expectations, free-form by design, so they are not flagged.
 * An empty `runtime` is kept as empty resources so it can be written back.
 */
function readRuntime(tool: ObjectReader): Execution | undefined {
  const runtime = tool.object('runtime');
  if (!runtime) return undefined;
  let timeoutSec = runtime.number('timeout_seconds');
  if (timeoutSec !== undefined && timeoutSec <= 0) {
    tool.context.report('INVALID_VALUE', `"timeout_seconds" is ${timeoutSec}; it must be more than 0.`, runtime.at('timeout_seconds'), {
      hint: 'Give the timeout per call in seconds, e.g. 30.',
    });
    timeoutSec = undefined;
  }
  const concurrency = runtime.enumValue('concurrency', CONCURRENCY);
  const resources = runtime.rest({ quiet: true }) ?? (Object.keys(runtime.value).length === 0 ? {} : undefined);
  return compact<Execution>({
    timeoutSec,
    allowParallel: concurrency === undefined ? undefined : concurrency === 'parallel',
    resources,
  });
}
