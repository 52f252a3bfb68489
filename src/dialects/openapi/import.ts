/**
 * Reading an OpenAPI 3.x or Swagger 2.0 document: one tool per operation.
 * See docs/dialects/openapi.md for the whole mapping.
 * @module
 */
import { tighteningEvidence } from '../../model/evidence.js';
import { compact, compactRequired } from '../../model/objects.js';
import type { BundleInfo, Provider, Tool } from '../../model/schema.js';
import { isPlainObject, jsonType } from '../../source/reader.js';
import type { ImportContext, ImportedDocument, Located } from '../types.js';
import { flavourOf } from './detect.js';
import { METHODS, type OpenApiDocument, type Operation } from './document.js';
import { PREFIX, readDeclarations } from './declarations.js';
import { inferEffects } from './effects.js';
import { buildInput, type Input } from './input.js';
import { UniqueNames, nameFromPath, sanitizeOperationId } from './names.js';
import { buildOutput } from './output.js';
import { ParameterReader } from './parameters.js';
import { child, Place, RefResolver } from './refs.js';
import { SchemaBuilder } from './schemas.js';
import { envPrefix, SecurityReader } from './security.js';
import { serverOf } from './servers.js';

/** The dialect id, used as the extension key. */
export const OPENAPI = 'openapi';

const ROOT = Place.ROOT;

/** Everything one import shares across operations. */
interface Session {
  readonly doc: OpenApiDocument;
  readonly params: ParameterReader;
  readonly security: SecurityReader;
  readonly names: UniqueNames;
  readonly info: Record<string, unknown>;
}

/** Import one parsed OpenAPI or Swagger document. Never throws on bad input. */
export function importOpenApi(context: ImportContext): ImportedDocument {
  const result: ImportedDocument = { tools: [], skills: [], agents: [], jobs: [] };
  const root = context.file.value;
  if (!isPlainObject(root)) {
    context.report('TYPE_MISMATCH', `An OpenAPI document must be an object, not ${jsonType(root)}.`, '');
    return result;
  }
  const session = openSession(context, root);
  const bundle = bundleOf(context, root, session.info);
  if (bundle !== undefined) result.bundle = bundle;
  const paths = root['paths'];
  if (paths === undefined) return result;
  if (!isPlainObject(paths)) {
    context.report('TYPE_MISMATCH', `"paths" must be an object, not ${jsonType(paths)}.`, '/paths');
    return result;
  }
  const pathsPlace = child(ROOT, 'paths');
  for (const path of Object.keys(paths)) {
    if (path.startsWith('x-')) continue; // specification extensions, not paths
    for (const op of operationsOf(session.doc, path, paths[path], child(pathsPlace, path))) result.tools.push(readOperation(session, op));
  }
  return result;
}

function openSession(context: ImportContext, root: Record<string, unknown>): Session {
  let flavour = flavourOf(root);
  if (flavour === undefined) {
    const key = 'swagger' in root ? 'swagger' : 'openapi';
    const hint = 'Write openapi: 3.1.0, openapi: 3.0.3 or swagger: "2.0".';
    // a document with neither field (a fragment read with --dialect openapi) has no node to point at: the finding is the document's
    if (key in root) context.report('UNKNOWN_SCHEMA_VERSION', `"${key}" does not name a version toolcap reads (2.0, 3.0.x, 3.1.x); read as OpenAPI 3.1.`, `/${key}`, { hint });
    else context.report('UNKNOWN_SCHEMA_VERSION', 'The document has no "openapi" or "swagger" field naming its version; read as OpenAPI 3.1.', '', { hint });
    flavour = key === 'swagger' ? '2.0' : '3.1';
  }
  const refs = new RefResolver(context);
  const doc: OpenApiDocument = { context, root, flavour, refs, schemas: new SchemaBuilder(refs, flavour) };
  const info = isPlainObject(root['info']) ? root['info'] : {};
  const title = typeof info['title'] === 'string' ? info['title'] : undefined;
  return {
    doc,
    info,
    params: new ParameterReader(doc),
    security: new SecurityReader(doc, envPrefix(serverOf(doc), title)),
    names: new UniqueNames(),
  };
}

/** The bundle from `info`; a non-string title, description or version is TYPE_MISMATCH at it. */
function bundleOf(context: ImportContext, root: Record<string, unknown>, info: Record<string, unknown>): BundleInfo | undefined {
  const text = (key: string) => {
    const v = info[key];
    if (v === undefined || typeof v === 'string') return v;
    context.report('TYPE_MISMATCH', `"info.${key}" must be a string, not ${jsonType(v)}.`, `/info/${key}`, { hint: `Quote it: ${key}: "${String(v)}".` });
    return undefined;
  };
  return compact<BundleInfo>({
    name: text('title'),
    description: text('description'),
    version: text('version'),
    schemaVersion: typeof root['openapi'] === 'string' ? root['openapi'] : typeof root['swagger'] === 'string' ? root['swagger'] : undefined,
  });
}

/** The operations of one path item (following a path item `$ref`). */
function operationsOf(doc: OpenApiDocument, path: string, value: unknown, place: Place): Operation[] {
  const resolved = doc.refs.deref(value, place);
  if (resolved === undefined) return [];
  if (!isPlainObject(resolved.value)) {
    doc.refs.report(resolved.place, 'TYPE_MISMATCH', `The path item "${path}" must be an object, not ${jsonType(resolved.value)}.`);
    return [];
  }
  const item = resolved.value;
  const ops: Operation[] = [];
  for (const method of METHODS) {
    const op = item[method];
    if (op === undefined) continue;
    const opPlace = child(resolved.place, method);
    if (isPlainObject(op)) ops.push({ method, path, value: op, place: opPlace, item, itemPlace: resolved.place });
    else doc.refs.report(opPlace, 'TYPE_MISMATCH', `The ${method.toUpperCase()} operation of "${path}" must be an object, not ${jsonType(op)}.`);
  }
  return ops;
}

/** One operation as a tool. */
function readOperation(session: Session, op: Operation): Located<Tool> {
  const { doc } = session;
  const declared = readDeclarations(doc.context, op.value, op.place);
  const { effects: _e, execution: _x, auth: declaredAuth, name: declaredName, ...rest } = declared;
  const text = (key: string) => stringAt(doc, op, key);
  const operationId = text('operationId');
  const summary = text('summary');
  const input = buildInput(doc, session.params, op);
  const reading = session.security.of(op);
  const name = nameOf(session, op, operationId, declaredName);
  const inferred = inferEffects(op.method, op.value, declared.effects ?? {}, declared.execution ?? {}, tighteningEvidence(operationId ?? name));
  if (inferred.tightenedBy) {
    doc.context.report(
      'EFFECTS_TIGHTENED',
      `${op.method.toUpperCase()} ${op.path} is read as a write: its name says ${inferred.tightenedBy.detail}. effects.mode "write" is derived; declare x-toolcap-effects.mode to say otherwise.`,
      op.place.anchor,
    );
  }
  const derived = [...inferred.derived];
  if (reading?.derivedEnvs && declaredAuth?.envs === undefined) derived.push('auth.envs');
  const tool = compactRequired<Tool>({
    name,
    id: operationId,
    title: summary,
    description: text('description') ?? summary,
    version: typeof session.info['version'] === 'string' ? session.info['version'] : undefined,
    tags: tagsOf(doc, op),
    inputSchema: input.schema,
    outputSchema: buildOutput(doc, op),
    effects: inferred.effects,
    execution: Object.keys(inferred.execution).length > 0 ? inferred.execution : undefined,
    auth: reading === undefined && declaredAuth === undefined ? undefined : { ...reading?.auth, ...declaredAuth },
    providers: [httpProvider(doc, op, input)],
    extensions: extensionOf(op.value),
  });
  Object.assign(tool, rest);
  if (derived.length > 0) tool.derived = derived;
  if (tool.id === tool.name) delete tool.id;
  return { value: tool, pointer: op.place.anchor };
}

/** How to call the operation: server, method, path, and where each input property goes. */
function httpProvider(doc: OpenApiDocument, op: Operation, input: Input): Provider {
  const config = compactRequired<Record<string, unknown>>({
    server: serverOf(doc, op),
    method: op.method.toUpperCase(),
    path: op.path,
    parameters: input.routing,
    contentType: input.contentType,
  });
  return { name: 'http', priority: 0, config };
}

/** A string field of the operation; another type is TYPE_MISMATCH at it and reads as absent. */
function stringAt(doc: OpenApiDocument, op: Operation, key: string): string | undefined {
  const v = op.value[key];
  if (v === undefined || typeof v === 'string') return v;
  doc.refs.report(child(op.place, key), 'TYPE_MISMATCH', `"${key}" must be a string, not ${jsonType(v)}.`);
  return undefined;
}

function tagsOf(doc: OpenApiDocument, op: Operation): string[] | undefined {
  const tags = op.value['tags'];
  if (tags === undefined) return undefined;
  if (Array.isArray(tags) && tags.every((t) => typeof t === 'string')) return tags as string[];
  doc.refs.report(child(op.place, 'tags'), 'TYPE_MISMATCH', '"tags" must be an array of strings.');
  return undefined;
}

/**
 * The tool name: `x-toolcap-name`, else the sanitised operationId, else
 * method + path; made unique within the document (DUPLICATE_TOOL as a
 * warning when a later operation had to be renamed).
 */
function nameOf(session: Session, op: Operation, operationId: string | undefined, declared: string | undefined): string {
  const wanted = declared ?? (operationId === undefined ? undefined : sanitizeOperationId(operationId)) ?? nameFromPath(op.method, op.path);
  const { name, renamed } = session.names.claim(wanted);
  if (renamed) {
    const at = operationId === undefined ? op.place : child(op.place, 'operationId');
    session.doc.refs.report(at, 'DUPLICATE_TOOL', `Another operation already has the name "${wanted}"; this one is named "${name}".`, 'Give the operations operationIds that differ in more than case and punctuation.', 'warning');
  }
  return name;
}

/** What has no canonical home but is worth keeping: `deprecated` and vendor extensions other than ours (x-toolcap-*). */
function extensionOf(op: Record<string, unknown>): Tool['extensions'] {
  const kept: Record<string, unknown> = {};
  if (op['deprecated'] === true) kept['deprecated'] = true;
  for (const key of Object.keys(op)) if (key.startsWith('x-') && !key.startsWith(PREFIX)) kept[key] = op[key];
  return Object.keys(kept).length > 0 ? { [OPENAPI]: kept } : undefined;
}
