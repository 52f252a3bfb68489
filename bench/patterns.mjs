// Schema patterns on the linear engine (src/model/linear-pattern.ts) against
// V8's RegExp, same run: the cost per argument check of every distinct
// `pattern` in the corpus's OpenAPI specs and MCP tool lists (the baseline is
// Ajv with its default engine, the candidate toolcap's createAjv), the
// compile cost per pattern, and what a catastrophic pattern costs each on a
// crafted string.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createAjv } from '../dist/model/validator.js';
import { CORPUS } from './corpus.mjs';
import { fmt } from './stats.mjs';

const DIRS = ['openapi', 'mcp-github-server', 'mcp-reference-servers', 'livemcpbench', 'mcp-registry-seed'];
/** Strings like those callers send: ids, dates, slugs, paths, keys, free text. */
const INPUTS = ['hello_world-42', '2026-12-07', 'cus_NffrFeUfNV2Hib', '/v1/customers', 'ssh-rsa AAAAB3NzaC1yc2E user@host', 'octocat', 'en-US', 'a'.repeat(64), 'The quick brown fox jumps over the lazy dog.', ''];

function patternsOf(value, out) {
  if (Array.isArray(value)) for (const v of value) patternsOf(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'pattern' && typeof v === 'string') out.add(v);
      else patternsOf(v, out);
    }
  }
  return out;
}

function corpusPatterns() {
  const found = new Set();
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.json')) {
        try {
          patternsOf(JSON.parse(readFileSync(path, 'utf8')), found);
        } catch {
          // not JSON after all: not a source of patterns
        }
      }
    }
  };
  for (const dir of DIRS) walk(join(CORPUS, dir));
  return [...found].filter((p) => {
    try {
      new RegExp(p, 'u');
      return true;
    } catch {
      return false;
    }
  });
}

/** ns per check, the best of `rounds` passes over every validator and input. */
function perCheck(validators, rounds = 7, passes = 200) {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let p = 0; p < passes; p++) for (const v of validators) for (const s of INPUTS) v(s);
    best = Math.min(best, (performance.now() - t0) / (passes * validators.length * INPUTS.length));
  }
  return best * 1e6;
}

export async function run() {
  const patterns = corpusPatterns();
  const baseline = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, logger: false });
  const ours = createAjv();
  const compile = (ajv) => {
    const t0 = performance.now();
    const validators = patterns.map((pattern) => ajv.compile({ type: 'string', pattern }));
    return { validators, ms: performance.now() - t0 };
  };
  const base = compile(baseline);
  const mine = compile(ours);
  // same verdicts, or the figures compare different work
  const differ = patterns.filter((_, i) => INPUTS.some((s) => base.validators[i](s) !== mine.validators[i](s)));
  const baseNs = perCheck(base.validators);
  const mineNs = perCheck(mine.validators);
  console.log(`\n## schema patterns: ${patterns.length} distinct patterns of the corpus (${DIRS.join(', ')}), ${INPUTS.length} caller strings each`);
  console.log('| engine | compile, all patterns | per check (string under a pattern) | ratio to V8 | verdicts that differ |');
  console.log('| --- | --- | --- | --- | --- |');
  console.log(`| V8 RegExp (Ajv's default, baseline) | ${fmt(base.ms)} ms | ${fmt(baseNs, 0)} ns | 1.00x | |`);
  console.log(`| linear (toolcap's createAjv) | ${fmt(mine.ms)} ms | ${fmt(mineNs, 0)} ns | ${fmt(mineNs / baseNs, 2)}x | ${differ.length} |`);

  // a careless pattern and a crafted string: V8's time doubles with each character
  const evil = { type: 'string', pattern: '^(a+)+$' };
  const v8 = baseline.compile(evil);
  const linear = ours.compile(evil);
  console.log('\n| `^(a+)+$` on n × "a" + "!" | V8 RegExp | linear | ratio V8 / linear |');
  console.log('| --- | --- | --- | --- |');
  for (const n of [20, 22, 24]) {
    const s = `${'a'.repeat(n)}!`;
    let t0 = performance.now();
    v8(s);
    const v8Ms = performance.now() - t0;
    t0 = performance.now();
    for (let i = 0; i < 100; i++) linear(s);
    const linearMs = (performance.now() - t0) / 100;
    console.log(`| ${n} | ${fmt(v8Ms, 1)} ms | ${fmt(linearMs * 1000, 1)} µs | ${fmt(v8Ms / linearMs, 0)}x |`);
  }
  const long = `${'a'.repeat(1_000_000)}!`;
  const t0 = performance.now();
  linear(long);
  console.log(`| 1,000,000 | (hours) | ${fmt(performance.now() - t0, 1)} ms | |`);
}
