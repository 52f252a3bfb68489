// Real tool records from ../shared/corpus, normalised to {name, description, inputSchema}.
// Used by the benchmarks (and later by retrieval tests): nothing here is invented.
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export const CORPUS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'corpus');

const PY_TYPES = { str: 'string', string: 'string', int: 'integer', integer: 'integer', float: 'number', number: 'number', bool: 'boolean', boolean: 'boolean', list: 'array', array: 'array', dict: 'object', object: 'object', any: undefined };

/** A JSON Schema type for the loose type names real catalogs use. */
function jsonType(t) {
  if (typeof t !== 'string') return undefined;
  const base = t.toLowerCase().replace(/\[.*$/, '').trim();
  return PY_TYPES[base] ?? (base.startsWith('list') ? 'array' : 'string');
}

function fromFieldMap(fields, required = []) {
  const properties = {};
  for (const [k, v] of Object.entries(fields ?? {})) {
    const type = jsonType(v?.type);
    properties[k] = { ...(type ? { type } : {}), ...(v?.description ? { description: String(v.description) } : {}) };
  }
  return { type: 'object', properties, required: required.filter((r) => r in properties) };
}

/** Normalise a BFCL-style schema ("dict", python type names) to JSON Schema, recursively. */
function repair(schema) {
  if (Array.isArray(schema)) return schema.map(repair);
  if (!schema || typeof schema !== 'object') return schema;
  const out = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'type' && typeof v === 'string') out.type = jsonType(v) ?? 'string';
    else if (k === 'default' || k === 'enum' || k === 'required') out[k] = v;
    else out[k] = repair(v);
  }
  return out;
}

const slug = (s) => String(s).toLowerCase().replace(/[^a-z0-9_.-]+/g, '_').replace(/^[^a-z0-9_]+/, '').slice(0, 80) || 'tool';
const jsonl = (path) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));

/** Every real tool record the corpus has, in a stable order. */
export function corpusTools() {
  const out = [];
  const add = (source, name, description, inputSchema) => out.push({ source, name: slug(name), description: String(description ?? ''), inputSchema });
  for (const r of jsonl(join(CORPUS, 'seal-tools/tool.jsonl'))) add('seal-tools', r.api_name, r.api_description, fromFieldMap(r.parameters, r.required));
  for (const server of JSON.parse(readFileSync(join(CORPUS, 'livemcpbench/tools.json'), 'utf8'))) {
    for (const [serverName, entry] of Object.entries(server.tools ?? {})) {
      for (const t of entry.tools ?? []) add('livemcpbench', `${serverName}.${t.name}`, t.description, t.inputSchema ?? { type: 'object' });
    }
  }
  for (const kit of JSON.parse(readFileSync(join(CORPUS, 'toolemu/all_toolkits.json'), 'utf8'))) {
    for (const t of kit.tools ?? []) {
      const fields = Object.fromEntries((t.parameters ?? []).map((p) => [p.name, p]));
      add('toolemu', `${kit.toolkit}.${t.name}`, t.summary, fromFieldMap(fields, (t.parameters ?? []).filter((p) => p.required).map((p) => p.name)));
    }
  }
  const seen = new Set();
  for (const file of ['BFCL_v4_simple_python.jsonl', 'BFCL_v4_multiple.jsonl', 'BFCL_v4_parallel_multiple.jsonl', 'BFCL_v4_live_multiple.jsonl', 'BFCL_v4_live_simple.jsonl', 'BFCL_v4_irrelevance.jsonl', 'BFCL_v4_live_irrelevance.jsonl']) {
    const path = join(CORPUS, 'bfcl-v4', file);
    if (!existsSync(path)) continue;
    for (const r of jsonl(path)) {
      for (const f of r.function ?? []) {
        if (seen.has(f.name)) continue;
        seen.add(f.name);
        add('bfcl', f.name, f.description, repair(f.parameters ?? { type: 'object' }));
      }
    }
  }
  for (const [name, description] of Object.entries(JSON.parse(readFileSync(join(CORPUS, 'metatool/plugin_des.json'), 'utf8')))) {
    add('metatool', name, description, { type: 'object' });
  }
  return out;
}

/**
 * `count` tools for a catalog, cycling through the corpus and suffixing the
 * names of repeats so every name is unique.
 */
export function corpusCatalog(count) {
  const all = corpusTools();
  const used = new Set();
  const tools = [];
  for (let i = 0; tools.length < count; i++) {
    const r = all[i % all.length];
    let name = r.name;
    for (let n = 2; used.has(name); n++) name = `${r.name}_${n}`;
    used.add(name);
    tools.push({ ...r, name });
  }
  return tools;
}

/** API-Bank label -> does the API write? Per SOURCE.md: "external effect … query" rows are authenticated reads. */
export function apiBankWrites(typeEn) {
  if (typeEn.startsWith('get information') || typeEn === 'other AI model') return false;
  if (typeEn.endsWith('- query')) return false;
  return true; // create, delete, update, real-time communication, generic database operation
}

/** API-Bank's APIs with the authors' label read as writes / does not write. */
export function apiBankCases() {
  return readFileSync(join(CORPUS, 'api-bank/apis.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .map((r) => ({ name: r.class_name, description: r.description ?? '', writes: apiBankWrites(r.type_en), label: r.type_en }));
}

/** Precision and recall of "writes" for predictions over cases. */
export function score(cases, predict) {
  let tp = 0, fp = 0, fn = 0, tn = 0;
  const misses = [];
  for (const c of cases) {
    const p = predict(c);
    if (p && c.writes) tp++;
    else if (p && !c.writes) { fp++; misses.push(`false write: ${c.name}`); }
    else if (!p && c.writes) { fn++; misses.push(`missed write: ${c.name}`); }
    else tn++;
  }
  return { tp, fp, fn, tn, precision: tp / (tp + fp), recall: tp / (tp + fn), misses };
}


/**
 * Operations whose HTTP method misleads, as listed in corpus/openapi/SOURCE.md:
 * Slack GETs that write, and GitHub POSTs that only render text.
 */
export const METHOD_EXCEPTIONS = {
  slack: { writes: ['/auth.revoke', '/apps.uninstall', '/apps.permissions.request', '/files.remote.share', '/views.open', '/views.publish', '/views.push', '/views.update', '/workflows.updateStep', '/workflows.stepCompleted', '/workflows.stepFailed'], reads: [] },
  github: { writes: [], reads: ['/markdown', '/markdown/raw'] },
};

/** Ground truth for an operation: its method, unless SOURCE.md lists it as an exception. */
export function operationWrites(api, method, path) {
  const ex = METHOD_EXCEPTIONS[api];
  if (ex.writes.includes(path)) return true;
  if (ex.reads.includes(path)) return false;
  return !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
}
