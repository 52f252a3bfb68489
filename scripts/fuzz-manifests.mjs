#!/usr/bin/env node
/**
 * Deterministic mutation fuzzer for everything that reads manifests.
 *
 * Starts from real documents (test/fixtures, examples/, and the shared corpus
 * at ../shared/corpus when present), mutates them with a seeded PRNG, and runs
 * each mutated input through the CLI's in-process entry point (`run` from
 * dist/cli/program.js): `validate --json`, `inspect --json`, and, when the
 * input validates, `convert --to <every dialect>` followed by a re-import of
 * what convert wrote (`validate --dialect <target>`).
 *
 * Each input runs in a worker thread that the main thread terminates after
 * --budget ms (a hang) or that dies at its heap limit (memory). Findings are
 * written to --out (the input plus a meta.json) and summarised at the end.
 *
 * Invariants checked per input:
 *   - no exit code 70, no "internal error", no stack trace in any output;
 *   - no uncaught exception / unhandled rejection in the worker;
 *   - finishes within --budget ms (killed otherwise) and within the heap limit;
 *   - validate --json prints JSON; every diagnostic has a known code, a
 *     severity and a message (a diagnostic without a file is counted as
 *     "unlocated", a soft finding);
 *   - validate and inspect agree on the exit code;
 *   - convert output parses (JSON or YAML) and re-imports with no errors;
 *   - built-in prototypes are untouched.
 *
 * Mutation classes: bytes (flip, cut, insert, splice, BOM/NUL/invalid UTF-8),
 * type (replace a node with a value of another type, odd numbers, odd
 * strings), keys (__proto__/constructor/prototype, duplicates, odd keys),
 * deep (10^5 nesting), huge (10 MB strings, 10^5-element arrays), yaml
 * (alias bombs, merge keys, tags, multi-documents, complex keys), ref
 * (OpenAPI $ref cycles, chains, fan-out, escapes, external refs; JSON Schema
 * $ref elsewhere), schema (recursive schemas, huge enums, catastrophic
 * patterns with matching defaults/examples).
 *
 * Usage: `node scripts/fuzz-manifests.mjs --help` (build dist first: npx tsc
 * -p tsconfig.build.json). The run is reproducible from --seed and --count:
 * input i of format F depends only on (seed, F, i).
 * Exit code: 0 when no hard finding, 1 otherwise.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs as parseCommandLine } from 'node:util';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// ---------------------------------------------------------------------------
// PRNG

function hash32(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  constructor(seed) {
    this.next = mulberry32(seed);
  }
  int(n) {
    return Math.floor(this.next() * n);
  }
  pick(list) {
    return list[this.int(list.length)];
  }
  chance(p) {
    return this.next() < p;
  }
}

// ---------------------------------------------------------------------------
// Seeds: real documents, by dialect

/** Every file below dir (no links followed). */
function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(p);
  }
  return out;
}

const CORPUS = resolve(REPO, '..', 'shared', 'corpus');

/**
 * Seed documents: { format (dialect family), rel (where to write it so
 * detection can pick it), text, companions?: [[absDir, relDir]] }.
 */
function loadSeeds() {
  const seeds = [];
  const add = (format, rel, text, companions) => seeds.push({ format, rel, text, ...(companions ? { companions } : {}) });
  const fx = join(REPO, 'test', 'fixtures');
  const tail = (p, n) => p.split('/').slice(-n).join('/');
  for (const p of walk(join(fx, 'core'))) if (/\.(ya?ml|json)$/.test(p)) add('toolcap', tail(p, 1), readFileSync(p, 'utf8'));
  for (const p of walk(join(REPO, 'examples', 'manifests', 'toolcap'))) if (/\.(ya?ml|json)$/.test(p)) add('toolcap', tail(p, 1), readFileSync(p, 'utf8'));
  for (const root of [join(fx, 'atlas'), join(REPO, 'examples', 'manifests', 'atlas')])
    for (const p of walk(root)) if (p.endsWith('.json') && !p.includes('/broken/')) add('atlas', p.slice(p.indexOf('modules/')), readFileSync(p, 'utf8'));
  for (const p of walk(join(fx, 'capability'))) {
    if (p.includes('/schemas/') || p.includes('/broken/')) continue;
    add('capability', tail(p, 1), readFileSync(p, 'utf8'), [[join(fx, 'capability', 'schemas'), 'schemas']]);
  }
  for (const p of walk(join(fx, 'pylot'))) if (/\.(ya?ml|json)$/.test(p) && !p.includes('/broken/')) add('pylot', /tool_manifest/.test(p) ? `config/${basename(p)}` : tail(p, 1), readFileSync(p, 'utf8'));
  for (const p of walk(join(fx, 'xena'))) if (p.endsWith('.json') && p.includes('/config/registry/')) add('xena', `config/registry/${basename(p)}`, readFileSync(p, 'utf8'));
  for (const p of walk(join(fx, 'shinkai'))) if (p.endsWith('metadata.json') && !p.includes('/broken/')) add('shinkai', 'tool/metadata.json', readFileSync(p, 'utf8'));
  for (const p of walk(join(fx, 'openai'))) if (p.endsWith('.json') && !p.includes('/broken/')) add('openai', 'tools.json', readFileSync(p, 'utf8'));
  for (const p of walk(join(fx, 'openapi'))) if (/\.ya?ml$/.test(p) && !p.includes('/broken/') && !p.includes('cross-file/models')) add('openapi', basename(p), readFileSync(p, 'utf8'));
  // corpus
  const bfcl = join(CORPUS, 'bfcl-v4');
  for (const name of ['BFCL_v4_simple_python.jsonl', 'BFCL_v4_multiple.jsonl', 'BFCL_v4_live_multiple.jsonl', 'BFCL_v4_simple_java.jsonl', 'BFCL_v4_simple_javascript.jsonl']) {
    const file = join(bfcl, name);
    if (!existsSync(file)) continue;
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(0, 40);
    for (let i = 0; i < lines.length; i += 8) {
      const fns = lines.slice(i, i + 8).flatMap((l) => JSON.parse(l).function ?? []);
      add('openai', 'tools.json', JSON.stringify(fns, null, 2));
      add('openai', 'tools.json', JSON.stringify(fns.map((f) => ({ type: 'function', function: f })), null, 2));
    }
  }
  for (const p of walk(join(CORPUS, 'mcp-reference-servers'))) if (p.endsWith('.json')) {
    const doc = JSON.parse(readFileSync(p, 'utf8'));
    add('mcp', 'tools.json', JSON.stringify({ tools: doc.tools }, null, 2));
  }
  const gh = join(CORPUS, 'mcp-github-server', 'tools.json');
  if (existsSync(gh)) {
    const doc = JSON.parse(readFileSync(gh, 'utf8'));
    const tools = Array.isArray(doc) ? doc : doc.tools;
    for (let i = 0; i < tools.length; i += 20) add('mcp', 'tools.json', JSON.stringify({ tools: tools.slice(i, i + 20) }, null, 2));
  }
  for (const p of walk(join(CORPUS, 'openapi', 'oai-examples'))) if (/\.(ya?ml|json)$/.test(p)) add('openapi', basename(p), readFileSync(p, 'utf8'));
  const pet = join(CORPUS, 'openapi', 'swagger-petstore3.openapi.yaml');
  if (existsSync(pet)) add('openapi', 'petstore.yaml', readFileSync(pet, 'utf8'));
  return seeds;
}

// ---------------------------------------------------------------------------
// Mutations

const MARK = (i) => `@@FZ${i}@@`;
const MARK_RE = /(["']?)@@FZ(\d+)@@\1/g;

/** Paths of every node of a parsed document (breadth-limited). */
function nodePaths(doc, limit = 4000) {
  const out = [];
  const visit = (v, path) => {
    if (out.length >= limit) return;
    out.push(path);
    if (Array.isArray(v)) v.forEach((x, i) => visit(x, [...path, i]));
    else if (v && typeof v === 'object') for (const k of Object.keys(v)) visit(v[k], [...path, k]);
  };
  visit(doc, []);
  return out;
}

const getAt = (doc, path) => path.reduce((v, k) => (v == null ? v : v[k]), doc);
function setAt(doc, path, value) {
  if (path.length === 0) return value;
  const parent = getAt(doc, path.slice(0, -1));
  if (parent && typeof parent === 'object') parent[path[path.length - 1]] = value;
  return doc;
}

const ODD_STRINGS = [
  '', ' ', 'NaN', 'Infinity', '-Infinity', 'null', 'undefined', 'true', '0x10', '1e999', '\ud800', 'x\udfffy', '\u0000', 'a\u0000b',
  '\u202eevil\u202c', '\ufeffbom', '\u200b', 'e\u0301', '𝔘𝔫𝔦', '../../../../etc/passwd', '/dev/zero', 'http://169.254.169.254/latest',
  '${HOME}', '{{x}}', '%s%n%x', '<script>alert(1)</script>', '\\', '"', "'", '\n\n---\n', '#', '&a', '*a', '!!python/object', 'a'.repeat(100_000),
  '__proto__', 'constructor', 'toString', 'hasOwnProperty',
];
const ODD_VALUES = [null, true, false, 0, -1, 1.5, -0.0, 2 ** 53 + 2, Number.MAX_VALUE, Number.MIN_VALUE, -1e300, [], {}, [null], { '': null }];
/** Raw tokens written into the text in place of a marker (valid JSON and YAML flow). */
const RAW_TOKENS = [
  '1e999', '-1e999', '123456789012345678901234567890123456789', '-0', '0.1e-400', '1E+2', '0.0000000000000000000000001', '9007199254740993',
];
const deepArrays = (n) => '['.repeat(n) + ']'.repeat(n);
const deepMaps = (n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

const SCHEMA_TRICKS = [
  () => ({ type: 'string', pattern: '^(a+)+$', default: `${'a'.repeat(40)}!`, examples: [`${'a'.repeat(40)}!`] }),
  () => ({ type: 'object', properties: { x: { type: 'string', pattern: '(x+x+)+y', default: 'x'.repeat(50) } } }),
  () => ({ type: 'object', patternProperties: { '^(a|a)*$': { type: 'string' } }, default: { [`${'a'.repeat(40)}!`]: 1 } }),
  () => ({ $ref: '#' }),
  () => ({ allOf: [{ $ref: '#' }], anyOf: [{ $ref: '#/properties' }] }),
  () => ({ type: 'object', properties: { self: { $ref: '#' } }, $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, additionalProperties: { $ref: '#/$defs/a' } }),
  () => ({ type: 'string', enum: Array.from({ length: 100_000 }, (_, i) => `v${i}`) }),
  () => ({ type: 'object', properties: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`p${i}`, { type: 'string' }])) }),
  () => ({ type: ['string', 5, null] }),
  () => ({ type: 'dict', properties: 'nope', required: 'x' }),
  () => ({ type: 'object', required: ['a', 'a', 5], properties: { a: true, b: false } }),
  () => ({ $schema: 'http://127.0.0.1:9/schema', $id: 'http://127.0.0.1:9/x', $dynamicRef: '#meta' }),
  () => ({ $ref: 'http://127.0.0.1:9/x.json' }),
  () => ({ $ref: '/etc/passwd' }),
  () => ({ $ref: '/dev/zero' }),
  () => ({ format: 'regex', pattern: '[', default: '(' }),
  () => ({ type: 'integer', minimum: 1e308, maximum: -1e308, multipleOf: 0, default: 1.5 }),
  () => ({ type: 'string', minLength: 1e20, maxLength: -1, default: '' }),
  () => ({ not: { not: { not: {} } }, if: { $ref: '#' }, then: false, else: true }),
  () => true,
  () => false,
];

/** OpenAPI $ref tricks: mutate the document, return it. */
function refTrick(rng, doc) {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return doc;
  const v2 = 'swagger' in doc;
  const base = v2 ? '#/definitions' : '#/components/schemas';
  const defs = v2 ? (doc.definitions ??= {}) : ((doc.components ??= {}).schemas ??= {});
  if (typeof defs !== 'object' || defs === null) return doc;
  const kind = rng.int(12);
  let target;
  switch (kind) {
    case 0: // two-schema cycle
      defs.FzA = { type: 'object', properties: { b: { $ref: `${base}/FzB` } } };
      defs.FzB = { $ref: `${base}/FzA` };
      target = `${base}/FzB`;
      break;
    case 1: // self reference
      defs.FzSelf = { $ref: `${base}/FzSelf` };
      target = `${base}/FzSelf`;
      break;
    case 2: { // a chain of refs to refs
      const n = rng.pick([50, 2000, 20_000]);
      for (let i = 0; i < n; i++) defs[`FzC${i}`] = { $ref: `${base}/FzC${i + 1}` };
      defs[`FzC${n}`] = { type: 'string' };
      target = `${base}/FzC0`;
      break;
    }
    case 3: { // exponential fan-out
      const levels = rng.pick([10, 20, 30]);
      for (let i = 0; i < levels; i++) defs[`FzL${i}`] = { type: 'object', properties: Object.fromEntries('abcdefghij'.split('').map((k) => [k, { $ref: `${base}/FzL${i + 1}` }])) };
      defs[`FzL${levels}`] = { type: 'string' };
      target = `${base}/FzL0`;
      break;
    }
    case 4: // JSON-pointer escapes
      defs['a/b'] = { type: 'string' };
      defs['a~b'] = { type: 'integer' };
      target = rng.pick([`${base}/a~1b`, `${base}/a~0b`, `${base}/a~2b`, `${base}/a%2Fb`, `${base}/a/b`, `${base}/~`, `${base}/~01`]);
      break;
    case 5: // into arrays and odd indices
      target = rng.pick(['#/tags/0', '#/servers/0', '#/x/-1', '#/tags/01', '#/tags/99999999999999999999', '#/tags/-', '#/paths', '#/info/title', '#/openapi']);
      break;
    case 6: // external and URL refs
      target = rng.pick(['other.yaml#/X', '../../../../../etc/passwd', '/etc/passwd#/', 'http://127.0.0.1:9/x.yaml#/a', 'https://example.invalid/s.json', 'file:///etc/passwd', 'data:application/json,{}', '/dev/zero', '/proc/self/environ', '.', './', 'tools.yaml#/']);
      break;
    case 7: // degenerate refs
      target = rng.pick(['#', '', '#/', '##', '#/components', ' ', '#/components/schemas/', '#%', '#/%ZZ']);
      break;
    case 8: // non-string refs
      target = rng.pick([5, null, {}, [], true, ['#/a']]);
      break;
    case 9: { // path item and parameter refs that cycle
      const paths = (doc.paths ??= {});
      if (typeof paths !== 'object' || paths === null) return doc;
      paths['/fz-a'] = { $ref: '#/paths/~1fz-b' };
      paths['/fz-b'] = { $ref: '#/paths/~1fz-a' };
      paths['/fz-c'] = { get: { parameters: [{ $ref: '#/paths/~1fz-c/get/parameters/0' }], responses: { 200: { $ref: '#/paths/~1fz-c/get/responses/200' } } } };
      return doc;
    }
    case 10: { // refs to an operation, a response, the whole document
      target = rng.pick(['#/paths/~1pets/get', '#/paths/~1pets/get/responses/200', '#/paths/~1pets~1{petId}/get/parameters/0', '#/paths/~1pets~1%7BpetId%7D/get']);
      break;
    }
    default: { // a huge schema referenced many times
      defs.FzBig = { type: 'object', properties: Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`p${i}`, { type: 'string', description: 'x'.repeat(50) }])) };
      defs.FzMany = { type: 'object', properties: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`q${i}`, { $ref: `${base}/FzBig` }])) };
      target = `${base}/FzMany`;
    }
  }
  // put the ref where an operation reads a schema, a parameter or a response
  const slots = nodePaths(doc.paths ?? {}, 3000)
    .filter((p) => p.length >= 2)
    .map((p) => ['paths', ...p])
    .filter((p) => {
      const v = getAt(doc, p);
      return v && typeof v === 'object' && !Array.isArray(v);
    });
  const n = 1 + rng.int(3);
  for (let i = 0; i < n && slots.length > 0; i++) setAt(doc, rng.pick(slots), { $ref: target });
  return doc;
}

/** Structure-aware mutation: returns { doc, raw } where raw maps marker indexes to raw text. */
function structural(rng, cls, doc, format) {
  const raw = [];
  const mark = (text) => {
    raw.push(text);
    return MARK(raw.length - 1);
  };
  const reps = 1 + rng.int(3);
  for (let r = 0; r < reps; r++) {
    const paths = nodePaths(doc);
    const objPaths = paths.filter((p) => {
      const v = getAt(doc, p);
      return v && typeof v === 'object' && !Array.isArray(v);
    });
    const anyPath = () => rng.pick(paths);
    switch (cls) {
      case 'type': {
        const p = anyPath();
        const old = getAt(doc, p);
        const choice = rng.int(6);
        const value =
          choice === 0 ? rng.pick(ODD_VALUES)
          : choice === 1 ? rng.pick(ODD_STRINGS)
          : choice === 2 ? mark(rng.pick(RAW_TOKENS))
          : choice === 3 ? [old]
          : choice === 4 ? { value: old }
          : typeof old === 'string' ? Number(old.length) : String(JSON.stringify(old) ?? 'x').slice(0, 200);
        doc = setAt(doc, p, structuredClone(value));
        break;
      }
      case 'keys': {
        if (objPaths.length === 0) break;
        const p = rng.pick(objPaths);
        const obj = getAt(doc, p);
        const keys = Object.keys(obj);
        const choice = rng.int(5);
        if (choice === 0) obj[mark(JSON.stringify(rng.pick(['__proto__', 'constructor', 'prototype'])))] = rng.pick([{ polluted: true }, { prototype: { polluted: true } }, 'x', null, [1]]);
        else if (choice === 1 && keys.length > 0) {
          const k = rng.pick(keys);
          obj[mark(JSON.stringify(k))] = rng.pick([null, 'dup', 5, { nested: true }, obj[k]]);
        } else if (choice === 2) obj[rng.pick(['', ' ', '\u0000', 'a/b~c', '$ref', '\ud800', '\u202e', 'x'.repeat(10_000), '1', 'NaN', 'toString', 'valueOf', '__defineGetter__'])] = rng.pick(['v', 1, null, {}]);
        else if (choice === 3 && keys.length > 0) {
          const k = rng.pick(keys);
          const v = obj[k];
          delete obj[k];
          obj[rng.pick([k.toUpperCase(), `${k} `, `\ufeff${k}`, `${k}\u0000`, k.normalize('NFD'), `x-${k}`])] = v;
        } else if (keys.length > 0) delete obj[rng.pick(keys)];
        break;
      }
      case 'deep': {
        const n = rng.pick([1000, 10_000, 100_000]);
        doc = setAt(doc, anyPath(), mark(rng.chance(0.5) ? deepArrays(n) : deepMaps(n)));
        break;
      }
      case 'huge': {
        const choice = rng.int(4);
        const p = anyPath();
        if (choice === 0) doc = setAt(doc, p, 'x'.repeat(10 * 1024 * 1024));
        else if (choice === 1) doc = setAt(doc, p, Array.from({ length: 100_000 }, (_, i) => i));
        else if (choice === 2) doc = setAt(doc, p, Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i])));
        else {
          // amplify a list: many copies of one entry
          const lists = paths.filter((q) => Array.isArray(getAt(doc, q)) && getAt(doc, q).length > 0);
          if (lists.length === 0) break;
          const list = getAt(doc, rng.pick(lists));
          const item = list[0];
          for (let i = 0; i < rng.pick([1000, 20_000]); i++) list.push(structuredClone(item));
        }
        r = reps; // one huge change is enough
        break;
      }
      case 'schema': {
        const named = objPaths.filter((p) => /schema|parameters|properties|items|result/i.test(String(p[p.length - 1])));
        const p = named.length > 0 && rng.chance(0.8) ? rng.pick(named) : anyPath();
        doc = setAt(doc, p, rng.pick(SCHEMA_TRICKS)());
        break;
      }
      case 'ref': {
        if (doc && typeof doc === 'object' && ('openapi' in doc || 'swagger' in doc)) doc = refTrick(rng, doc);
        else {
          const named = objPaths.filter((p) => /schema|parameters|properties/i.test(String(p[p.length - 1])));
          const p = named.length > 0 ? rng.pick(named) : anyPath();
          doc = setAt(doc, p, { $ref: rng.pick(['#', '#/', '#/0', '#/tools/0', 'x.json', '/etc/passwd', 'http://127.0.0.1:9/', '#/a~1b', 5, null]) });
        }
        break;
      }
      case 'yaml': {
        const p = anyPath();
        const choice = rng.int(8);
        const bomb = () => {
          const lv = rng.pick([6, 9, 12]);
          const parts = ['&fz0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
          for (let i = 1; i < lv; i++) parts.push(`&fz${i} [${Array(9).fill(`*fz${i - 1}`).join(',')}]`);
          return `[${parts.join(', ')}]`;
        };
        const text =
          choice === 0 ? bomb()
          : choice === 1 ? rng.pick(['{ <<: {name: merged, __proto__: {polluted: true}}, a: 1 }', '{ <<: [{a: 1}, {b: 2}], <<: {c: 3} }', '{ <<: 5 }', '{ <<: [1, 2] }'])
          : choice === 2 ? rng.pick(['!!python/object/apply:os.system ["echo pwned"]', '!!js/function "function(){}"', '!!js/undefined ""', '!!binary aGVsbG8=', '!!timestamp 2001-12-14', '!!float .nan', '!!int 0x1F', '!custom x', '!<tag:yaml.org,2002:str> 5', '!!map [1]', '!!seq {a: 1}', '!!set {a, b}', '!!omap [a: 1, a: 2]', '!!pairs [a: 1]', '!!str'])
          : choice === 3 ? rng.pick(['yes', 'on', 'NO', '0o777', '012', '.inf', '-.Inf', '.NaN', '~', '2001-12-14t21:59:43.10-05:00', '0x_1', '1_000', '+1', '0b101'])
          : choice === 4 ? rng.pick(['{ [a, b]: c }', '{ {a: 1}: b }', '{ null: 1, ~: 2 }', '{ 1: a, "1": b }', '{ ? x }', '{ true: 1, "true": 2 }'])
          : choice === 5 ? rng.pick(['&a {x: *a}', '*undefined_anchor', '&a [*a]', '&a x'])
          : choice === 6 ? rng.pick(['"\\ud800"', '"\\x00"', '"\\L\\P"', '"\\U0010FFFF"', '"\\U00110000"', "'a''b'"])
          : rng.pick(['|\n  literal', '>-\n  folded', '"multi\n  line"']);
        doc = setAt(doc, p, mark(text));
        break;
      }
      default:
        break;
    }
  }
  return { doc, raw, format: cls === 'yaml' ? 'yaml' : format };
}

/** Byte-level mutation of the text. */
function bytes(rng, text) {
  let buf = Buffer.from(text, 'utf8');
  const edits = 1 + rng.int(6);
  const SPECIAL = [[0xef, 0xbb, 0xbf], [0x00], [0xff], [0xfe, 0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xe2, 0x80, 0xae], [0xf4, 0x90, 0x80, 0x80], [0x0d], [0x09], [0x22], [0x5b], [0x7b], [0x3a, 0x20], [0x26, 0x61], [0x2a, 0x61], [0x5c]];
  for (let e = 0; e < edits; e++) {
    const at = rng.int(buf.length + 1);
    const choice = rng.int(6);
    if (choice === 0 && buf.length > 0) {
      const i = Math.min(at, buf.length - 1);
      buf[i] ^= 1 << rng.int(8);
    } else if (choice === 1) buf = buf.subarray(0, at);
    else if (choice === 2) buf = Buffer.concat([buf.subarray(0, at), Buffer.from(rng.pick(SPECIAL)), buf.subarray(at)]);
    else if (choice === 3) {
      const len = rng.int(64);
      buf = Buffer.concat([buf.subarray(0, at), buf.subarray(at + len)]);
    } else if (choice === 4) {
      const from = rng.int(buf.length + 1);
      const len = rng.int(200);
      buf = Buffer.concat([buf.subarray(0, at), buf.subarray(from, from + len), buf.subarray(at)]);
    } else if (at === 0 || rng.chance(0.3)) buf = Buffer.concat([Buffer.from(rng.pick(SPECIAL)), buf]);
    else buf[Math.min(at, buf.length - 1)] = rng.int(256);
    if (buf.length === 0) break;
  }
  return buf;
}

const CLASSES = ['bytes', 'type', 'keys', 'deep', 'huge', 'yaml', 'ref', 'schema'];
const WEIGHTS = { bytes: 30, type: 20, keys: 14, deep: 4, huge: 2, yaml: 12, ref: 10, schema: 10 };

/** The i-th input of a format: deterministic in (seed, format, i). */
export function makeInput(seeds, seed, format, i, classes) {
  const rng = new Rng(hash32(`${seed}:${format}:${i}`));
  const mine = seeds.filter((s) => s.format === format);
  const src = rng.pick(mine);
  const total = classes.reduce((a, c) => a + WEIGHTS[c], 0);
  let roll = rng.int(total);
  let cls = classes[0];
  for (const c of classes) {
    if (roll < WEIGHTS[c]) {
      cls = c;
      break;
    }
    roll -= WEIGHTS[c];
  }
  const srcFormat = /\.json$/.test(src.rel) ? 'json' : 'yaml';
  let rel = src.rel;
  let body;
  if (cls === 'bytes') body = bytes(rng, src.text);
  else {
    let doc;
    try {
      doc = YAML.parse(src.text, { maxAliasCount: -1 });
    } catch {
      doc = undefined;
    }
    const m = structural(rng, cls, doc, srcFormat);
    let text = m.format === 'json' ? JSON.stringify(m.doc, null, rng.chance(0.5) ? 2 : 0) ?? 'null' : YAML.stringify(m.doc, { lineWidth: 0, aliasDuplicateObjects: false });
    text = text.replace(MARK_RE, (_all, _q, n) => m.raw[Number(n)]);
    if (m.format !== srcFormat) rel = rel.replace(/\.json$/, '.yaml');
    body = Buffer.from(text, 'utf8');
    // invalid UTF-8 inside an otherwise well-formed document
    if (cls === 'type' && rng.chance(0.1)) body = Buffer.concat([body.subarray(0, body.length >> 1), Buffer.from([0xff, 0xc3, 0x28]), body.subarray(body.length >> 1)]);
  }
  const explicit = rel !== src.rel || rng.chance(0.3);
  return {
    id: `${format}#${i}`,
    format,
    cls,
    rel,
    body,
    dialect: explicit ? format : undefined,
    compileSchemas: rng.chance(0.3),
    companions: src.companions,
  };
}

// ---------------------------------------------------------------------------
// Worker: run one input through the CLI and check the invariants

let YAML;

async function workerMain() {
  YAML = await import('yaml');
  const { run } = await import(join(REPO, 'dist', 'cli', 'program.js'));
  const { dialectIds } = await import(join(REPO, 'dist', 'dialects', 'lookup.js'));
  const { DIAGNOSTIC_CODES } = await import(join(REPO, 'dist', 'model', 'diagnostics.js'));
  const codes = new Set(Object.keys(DIAGNOSTIC_CODES));
  const protoBefore = protoSnapshot();
  let current;
  const async = [];
  process.on('unhandledRejection', (e) => async.push(`unhandledRejection: ${e?.stack ?? e}`));
  process.on('uncaughtException', (e) => async.push(`uncaughtException: ${e?.stack ?? e}`));
  // manifests must never make toolcap open a network connection
  const realFetch = globalThis.fetch;
  globalThis.fetch = (...args) => {
    async.push(`fetch: ${String(args[0]).slice(0, 200)}`);
    return realFetch('http://127.0.0.1:1/');
  };
  const root = join(tmpdir(), `toolcap-fuzz-${process.pid}-${workerData.wid}`);
  parentPort.on('message', async (input) => {
    current = input;
    const problems = [];
    const soft = [];
    const slowest = { ms: 0, cmd: '' };
    const t0 = performance.now();
    const dir = join(root, String(input.n));
    try {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      for (const [from, to] of input.companions ?? []) cpSync(from, join(dir, to), { recursive: true });
      const file = join(dir, input.rel);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, Buffer.from(input.body));
      const common = input.dialect ? ['--dialect', input.dialect] : [];
      const cli = async (...argv) => {
        let stdout = '';
        let stderr = '';
        const started = performance.now();
        const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
        const took = performance.now() - started;
        if (took > slowest.ms) Object.assign(slowest, { ms: took, cmd: argv.slice(0, 3).join(' ') });
        const out = { code, stdout, stderr };
        if (code === 70 || /internal error/i.test(stderr) || /\n\s+at [^\n]*:\d+:\d+\)?\n/.test(stdout + stderr)) problems.push({ kind: 'internal', cmd: argv.join(' '), detail: stderr.slice(0, 3000) });
        return out;
      };
      const v = await cli('validate', file, '--json', ...common);
      let report;
      try {
        report = JSON.parse(v.stdout);
      } catch {
        if (v.code !== 70) problems.push({ kind: 'bad-json', cmd: 'validate --json', detail: v.stdout.slice(0, 500) });
      }
      if (report) {
        for (const d of report.diagnostics) {
          if (!codes.has(d.code) || !['error', 'warning', 'info'].includes(d.severity) || typeof d.message !== 'string' || d.message === '') problems.push({ kind: 'bad-diagnostic', detail: JSON.stringify(d).slice(0, 500) });
          else if (d.file === undefined) soft.push({ kind: 'unlocated', detail: d.code });
          else if (d.line === undefined && d.file === file && !['FILE_EMPTY', 'FILE_TOO_LARGE', 'FILE_UNREADABLE'].includes(d.code)) soft.push({ kind: 'no-line', detail: d.code });
        }
      }
      // --compile-schemas (validate only) compiles every schema with Ajv: more findings, the same invariants
      if (input.compileSchemas) {
        const compiled = await cli('validate', file, '--json', '--compile-schemas', ...common);
        try {
          JSON.parse(compiled.stdout);
        } catch {
          if (compiled.code !== 70) problems.push({ kind: 'bad-json', cmd: 'validate --json --compile-schemas', detail: compiled.stdout.slice(0, 500) });
        }
      }
      const ins = await cli('inspect', file, '--json', ...common);
      if (ins.code !== v.code && v.code !== 70 && ins.code !== 70) problems.push({ kind: 'exit-mismatch', detail: `validate ${v.code}, inspect ${ins.code}` });
      if (ins.code !== 2 && ins.code !== 70) {
        try {
          JSON.parse(ins.stdout);
        } catch {
          problems.push({ kind: 'bad-json', cmd: 'inspect --json', detail: ins.stdout.slice(0, 300) });
        }
      }
      if (workerData.convert && report?.ok && report.tools > 0) {
        const targets = dialectIds().filter((_, k) => workerData.targets >= dialectIds().length || (input.n * 7 + k) % dialectIds().length < workerData.targets);
        for (const to of targets) {
          let c = await cli('convert', file, '--to', to, ...common);
          let outPath;
          let folder = false;
          if (c.code === 0) {
            let parsed;
            let kind = 'json';
            try {
              parsed = JSON.parse(c.stdout);
            } catch {
              kind = 'yaml';
              try {
                // uniqueKeys: false, as toolcap reads YAML: yaml's own key check is quadratic in a mapping's keys (a 1.4 MB
                // convert output took 18 s, which the budget counted as a hang of toolcap's); the re-import checks keys anyway
                parsed = YAML.parse(c.stdout, { maxAliasCount: -1, uniqueKeys: false });
              } catch (e) {
                problems.push({ kind: 'convert-unparseable', cmd: `convert --to ${to}`, detail: String(e).slice(0, 300) });
                continue;
              }
            }
            if (parsed === undefined) problems.push({ kind: 'convert-unparseable', cmd: `convert --to ${to}`, detail: 'empty output' });
            outPath = join(dir, `out-${to}`, to === 'shinkai' ? 'metadata.json' : `tools.${kind}`);
            mkdirSync(dirname(outPath), { recursive: true });
            writeFileSync(outPath, c.stdout);
          } else if (c.code === 2 && /give --out <folder>/.test(c.stderr)) {
            outPath = join(dir, `out-${to}`);
            folder = true;
            c = await cli('convert', file, '--to', to, '--out', outPath, ...common);
            if (c.code !== 0) continue;
          } else continue;
          // a folder is read as a user would: by detection (it may hold schema files next to the manifests)
          const back = await cli('validate', outPath, '--json', ...(folder ? [] : ['--dialect', to]));
          let backReport;
          try {
            backReport = JSON.parse(back.stdout);
          } catch {
            problems.push({ kind: 'bad-json', cmd: `re-import ${to}`, detail: back.stdout.slice(0, 300) });
            continue;
          }
          if (back.code !== 0) problems.push({ kind: 'reimport-fails', cmd: `convert --to ${to}; validate --dialect ${to}`, detail: JSON.stringify(backReport.diagnostics.filter((d) => d.severity === 'error').slice(0, 3)).slice(0, 1500) });
        }
      }
    } catch (e) {
      problems.push({ kind: 'uncaught', detail: String(e?.stack ?? e).slice(0, 3000) });
    }
    // give stray promises a turn before reporting
    await new Promise((r) => setImmediate(r));
    for (const a of async.splice(0)) problems.push({ kind: a.startsWith('fetch') ? 'network' : 'uncaught', detail: a.slice(0, 3000) });
    const protoNow = protoSnapshot();
    if (protoNow !== protoBefore || {}.polluted !== undefined) problems.push({ kind: 'pollution', detail: 'built-in prototypes changed' });
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort
    }
    parentPort.postMessage({ n: input.n, problems, soft, ms: performance.now() - t0, slowest, rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed });
    current = undefined;
  });
  parentPort.postMessage({ ready: true });
  void current;
}

function protoSnapshot() {
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype].map((p) => Object.getOwnPropertyNames(p).sort().join(',')).join('|');
}

// ---------------------------------------------------------------------------
// Main: generate, dispatch, watch the clock

const USAGE = `Usage: node scripts/fuzz-manifests.mjs [options]   (build dist first: npx tsc -p tsconfig.build.json)

Mutates real manifests (test/fixtures, examples/, ../shared/corpus) with a seeded PRNG and runs each one
through validate, inspect and convert; exit code 0 when no hard finding, 1 otherwise, 2 on a bad option.

  --seed N        PRNG seed (default 1)
  --count N       inputs per format (default 200)
  --from I        first input index, to replay one: --formats F --from I --count 1 (default 0)
  --formats a,b   formats to mutate (default: every format of the seeds)
  --classes a,b   mutation classes (default: all): ${CLASSES.join(', ')}
  --workers N     inputs run at once, each in its own worker thread (default 1)
  --budget MS     time one input may take before it is a hang (default 60000)
  --slow MS       a command slower than this is a soft finding (default 5000)
  --heap-mb MB    heap limit of each worker (default 2048)
  --targets N     convert each valid input to only N dialects, rotating (default: all)
  --no-convert    validate and inspect only
  --out DIR       where findings are written (default: $TMPDIR/toolcap-fuzz)
  --quiet         print the summary only
  -h, --help      this text`;

const NUMBERS = ['seed', 'count', 'from', 'workers', 'budget', 'slow', 'heap-mb', 'targets'];

/** The command line as options; undefined after printing the usage for --help. Throws a UsageError on a bad option. */
function parseArgs(argv) {
  let values;
  try {
    ({ values } = parseCommandLine({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        ...Object.fromEntries(NUMBERS.map((name) => [name, { type: 'string' }])),
        formats: { type: 'string' },
        classes: { type: 'string' },
        out: { type: 'string' },
        'no-convert': { type: 'boolean' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError(error.message);
  }
  if (values.help) return undefined;
  const number = (name, fallback) => {
    if (values[name] === undefined) return fallback;
    const n = Number(values[name]);
    if (!Number.isSafeInteger(n) || n < 0) throw new UsageError(`--${name} must be a whole number, not "${values[name]}"`);
    return n;
  };
  const list = (name) => values[name]?.split(',').map((item) => item.trim()).filter(Boolean);
  const classes = list('classes') ?? CLASSES;
  const unknown = classes.filter((c) => !CLASSES.includes(c));
  if (unknown.length) throw new UsageError(`unknown --classes ${unknown.join(', ')}; known: ${CLASSES.join(', ')}`);
  return {
    seed: number('seed', 1),
    count: number('count', 200),
    from: number('from', 0),
    formats: list('formats'),
    classes,
    workers: Math.max(1, number('workers', 1)),
    budget: number('budget', 60_000),
    targets: number('targets', 99),
    slow: number('slow', 5_000),
    out: values.out === undefined ? join(tmpdir(), 'toolcap-fuzz') : resolve(values.out),
    convert: !values['no-convert'],
    quiet: values.quiet === true,
    heapMb: number('heap-mb', 2048),
  };
}

class UsageError extends Error {}

const HARD = new Set(['internal', 'uncaught', 'hang', 'oom', 'worker-died', 'bad-json', 'bad-diagnostic', 'exit-mismatch', 'convert-unparseable', 'reimport-fails', 'pollution', 'network']);

async function main() {
  YAML = await import('yaml');
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`fuzz-manifests: ${error.message}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  if (opts === undefined) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!existsSync(join(REPO, 'dist', 'cli', 'program.js'))) throw new Error('build dist first: npx tsc -p tsconfig.build.json');
  const seeds = loadSeeds();
  const formats = opts.formats ?? [...new Set(seeds.map((s) => s.format))];
  mkdirSync(opts.out, { recursive: true });
  const queue = [];
  for (let i = opts.from; i < opts.from + opts.count; i++) for (const f of formats) queue.push([f, i]);
  const total = queue.length;
  const stats = {};
  const findings = [];
  const softCounts = {};
  let done = 0;
  let peakRss = 0;
  let n = 0;
  const started = performance.now();
  const bump = (key) => (stats[key] ??= { inputs: 0, hard: 0, slow: 0, ms: 0 });
  const record = (input, problems, ms, slowest = { ms, cmd: 'all' }) => {
    const s = bump(`${input.format}/${input.cls}`);
    s.inputs++;
    s.ms += ms;
    const slow = slowest.ms > opts.slow;
    if (slow) s.slow++;
    const hard = problems.filter((p) => HARD.has(p.kind));
    if (slow) problems.push({ kind: 'slow', cmd: slowest.cmd, detail: `${Math.round(slowest.ms)} ms` });
    if (hard.length > 0 || slow) {
      if (hard.length > 0) s.hard++;
      const ext = input.rel.replace(/.*\//, '');
      const base = join(opts.out, `${input.format}-${input.id.split('#')[1]}-${opts.seed}`);
      mkdirSync(base, { recursive: true });
      writeFileSync(join(base, ext), Buffer.from(input.body));
      writeFileSync(join(base, 'meta.json'), JSON.stringify({ id: input.id, seed: opts.seed, cls: input.cls, rel: input.rel, dialect: input.dialect, compileSchemas: input.compileSchemas, ms: Math.round(ms), problems }, null, 2));
      findings.push({ id: input.id, cls: input.cls, kinds: [...new Set(problems.map((p) => p.kind))], dir: base });
      if (!opts.quiet) console.error(`finding ${input.id} (${input.cls}): ${problems.map((p) => `${p.kind}${p.cmd ? ` [${p.cmd}]` : ''}: ${String(p.detail).split('\n')[0].slice(0, 160)}`).join(' | ')}`);
    }
    done++;
    if (!opts.quiet && done % 100 === 0) console.error(`${done}/${total} inputs, ${findings.length} findings, ${Math.round((performance.now() - started) / 1000)} s, peak rss ${Math.round(peakRss / 1e6)} MB`);
  };

  const spawnWorker = (wid) =>
    new Promise((ready) => {
      const w = new Worker(fileURLToPath(import.meta.url), { workerData: { wid, convert: opts.convert, targets: opts.targets }, resourceLimits: { maxOldGenerationSizeMb: opts.heapMb, stackSizeMb: 4 } });
      // only until it is up: later, a worker's error (out of memory on an input) is the lane's finding to record
      const failedToStart = (e) => {
        console.error(`worker failed to start: ${e?.stack ?? e}`);
        process.exit(2);
      };
      w.once('error', failedToStart);
      w.once('message', () => {
        w.off('error', failedToStart);
        ready(w);
      });
    });

  async function lane(wid) {
    let w = await spawnWorker(wid);
    while (queue.length > 0) {
      const [format, i] = queue.shift();
      const input = makeInput(seeds, opts.seed, format, i, opts.classes);
      input.n = n++;
      const outcome = await new Promise((settle) => {
        const timer = setTimeout(() => settle({ kind: 'hang' }), opts.budget);
        const onMessage = (m) => {
          clearTimeout(timer);
          cleanup();
          settle({ kind: 'ok', m });
        };
        const onError = (e) => {
          clearTimeout(timer);
          cleanup();
          settle({ kind: e?.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'oom' : 'worker-died', detail: String(e?.stack ?? e) });
        };
        const onExit = (code) => onError(new Error(`worker exited ${code}`));
        const cleanup = () => {
          w.off('message', onMessage);
          w.off('error', onError);
          w.off('exit', onExit);
        };
        w.on('message', onMessage);
        w.on('error', onError);
        w.on('exit', onExit);
        w.postMessage(input);
      });
      if (outcome.kind === 'ok') {
        peakRss = Math.max(peakRss, outcome.m.rss);
        for (const s of outcome.m.soft) softCounts[`${s.kind}:${s.detail}`] = (softCounts[`${s.kind}:${s.detail}`] ?? 0) + 1;
        record(input, outcome.m.problems, outcome.m.ms, outcome.m.slowest);
        if (outcome.m.rss > 3.5e9) {
          // keep the next inputs honest: start afresh
          await w.terminate();
          w = await spawnWorker(wid);
        }
      } else {
        record(input, [{ kind: outcome.kind, detail: outcome.detail ?? `over ${opts.budget} ms` }], opts.budget);
        w.removeAllListeners();
        w.on('error', () => {});
        await w.terminate().catch(() => {});
        w = await spawnWorker(wid);
      }
    }
    await w.terminate();
  }
  const summarize = () => {
    const summary = { seed: opts.seed, from: opts.from, count: opts.count, formats, seeds: Object.fromEntries(formats.map((f) => [f, seeds.filter((s) => s.format === f).length])), inputs: done, seconds: Math.round((performance.now() - started) / 1000), peakRssMb: Math.round(peakRss / 1e6), stats, soft: softCounts, findings };
    writeFileSync(join(opts.out, `summary-${opts.seed}-${opts.from}.json`), JSON.stringify(summary, null, 2));
    return summary;
  };
  // stopped early (SIGINT/SIGTERM): keep what was run
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => {
    summarize();
    process.exit(130);
  });
  await Promise.all(Array.from({ length: opts.workers }, (_, i) => lane(i)));
  const summary = summarize();
  console.log(JSON.stringify({ ...summary, findings: findings.length, findingKinds: findings.reduce((a, f) => { for (const k of f.kinds) a[k] = (a[k] ?? 0) + 1; return a; }, {}) }, null, 2));
  process.exitCode = findings.some((f) => f.kinds.some((k) => HARD.has(k))) ? 1 : 0;
}

if (isMainThread) {
  if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
  else YAML = await import('yaml');
} else await workerMain();

export { loadSeeds };
