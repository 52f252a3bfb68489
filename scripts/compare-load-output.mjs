// Does a build of toolcap load catalogs exactly as another build does? For performance work on the
// load path (issue 16): the catalog and every diagnostic (code, message, file, pointer, line, column,
// hint, order) must be byte-identical, as JSON, between the old and the new build.
//
//   node scripts/compare-load-output.mjs <old dist folder> [<new dist folder>, default dist/]
//
// Inputs: the load benchmark's two 10,000-tool catalogs (canonical and ATLAS, from the corpus), a
// varied pretty-printed ATLAS toolbox made from the example and fixture entries (bad values, unknown
// fields, escaped and duplicate keys, CRLF, a persona folder), the ATLAS examples and fixtures, and
// every other fixture folder. Exit code 1 and the first difference when any output differs.
// (An old dist outside the repo needs node_modules beside it: ln -s "$PWD/node_modules" <dir>/..)
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { corpusCatalog } from '../bench/corpus.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const [oldDist, newDist = join(ROOT, 'dist')] = process.argv.slice(2);
if (!oldDist) {
  console.error('usage: node scripts/compare-load-output.mjs <old dist folder> [<new dist folder>]');
  process.exit(2);
}

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** The load benchmark's catalogs (bench/load.mjs), byte for byte. */
function benchCatalogs(dir) {
  const tools = corpusCatalog(10_000);
  const canonical = join(dir, 'bench', 'catalog.json');
  write(canonical, JSON.stringify({ toolcap: 1, tools: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })) }));
  const atlas = join(dir, 'bench', 'atlas', 'modules', 'Tools', 'tool_maps', 'functions.json');
  write(atlas, JSON.stringify(tools.map(({ name, description, inputSchema }, i) => ({ name, version: '1.0.0', description, side_effects: i % 3 ? 'none' : 'write', default_timeout: 30, allow_parallel: true, parameters: inputSchema }))));
  return [[canonical], [atlas]];
}

/** Real ATLAS entries, repeated with changes that reach every import, lint and locate path. */
function variedAtlas(dir) {
  const read = (p) => JSON.parse(readFileSync(join(ROOT, p), 'utf8'));
  const pool = [...read('examples/manifests/atlas/modules/Tools/tool_maps/functions.json'), ...read('test/fixtures/atlas/modules/Tools/tool_maps/functions.json')];
  const effects = ['none', 'write', 'system', 'network', 'read_external_service', 'filesystem', 'database', 'compute', 'bogus'];
  const names = ['delete_user', 'get_weather', 'Send Email', 'revokeToken', 'list.items', 'update-record', 'x', 'run_job', 'búsqueda'];
  const descriptions = ['Delete the thing.', 'Get the weather. Then post it.', 'Sends a message!', '', 'Revoke all tokens for a user'];
  const out = [];
  for (let i = 0; i < 600; i++) {
    const e = structuredClone(pool[i % pool.length]);
    e.name = `${names[i % names.length]}_${i}`;
    if (i % 4 === 0) e.side_effects = effects[i % effects.length];
    if (i % 7 === 0) e.safety_level = i % 14 ? 'high' : 'extreme';
    if (i % 5 === 0) e.description = descriptions[i % 5];
    if (i % 11 === 0) e.mystery = { a: i };
    if (i % 13 === 0) e.default_timeout = i % 26 ? 0 : 'slow';
    if (i % 17 === 0) e.tags = ['a', 1, 'b'];
    if (i % 19 === 0) e.capabilities = ['Bad Cap', 'single', 'web.search'];
    if (i % 23 === 0) e.requires_consent = true;
    if (i % 29 === 0) e.parameters = { type: 'object', properties: { a: { type: 'strng' } } };
    if (i % 31 === 0) e.idempotency_key = 'yes';
    out.push(e);
  }
  out.push(5, { description: 'no name' }, { name: '' });
  // an escaped key and a duplicate one (JSON.parse keeps the last) in pretty-printed text
  const shared = JSON.stringify(out, null, 2).replace('"side_effects": ', '"side\\u005feffects": "none",\n    "side_effects": ');
  const base = join(dir, 'varied', 'modules');
  write(join(base, 'Tools', 'tool_maps', 'functions.json'), shared);
  write(join(base, 'Personas', 'Atlas', 'Toolbox', 'functions.json'), JSON.stringify(out.slice(0, 50).concat([{ name: out[0].name }]), null, 4).replace(/\n/g, '\r\n'));
  return [[join(dir, 'varied')], [join(base, 'Tools', 'tool_maps', 'functions.json'), join(base, 'Personas', 'Atlas', 'Toolbox', 'functions.json')]];
}

const dir = mkdtempSync(join(tmpdir(), 'toolcap-compare-'));
try {
  const fixtures = ['adapters', 'capability', 'convert', 'core', 'diff', 'mcp', 'mcp-registry', 'mcp-servers', 'openai', 'openapi', 'providers', 'pylot', 'python', 'shinkai', 'xena'];
  const inputs = [
    ...benchCatalogs(dir),
    ...variedAtlas(dir),
    [join(ROOT, 'test/fixtures/atlas')],
    [join(ROOT, 'test/fixtures/atlas/broken')],
    [join(ROOT, 'examples/manifests/atlas')],
    [join(ROOT, 'examples/manifests/atlas'), join(ROOT, 'test/fixtures/atlas')],
    ...fixtures.map((d) => [join(ROOT, 'test/fixtures', d)]),
    [join(ROOT, 'examples/manifests')],
  ];
  const load = async (folder) => (await import(pathToFileURL(join(resolve(folder), 'index.js')).href)).buildCatalog;
  const builds = [await load(oldDist), await load(newDist)];
  const output = (build, layers) => {
    const r = build(layers);
    const { documents, ...catalog } = r.catalog;
    return JSON.stringify({ catalog, diagnostics: r.diagnostics, unreadable: r.unreadable, documents: [...documents.keys()] });
  };
  let differ = 0;
  for (const layers of inputs) {
    const [before, after] = builds.map((b) => output(b, layers));
    const label = layers.map((l) => l.replace(dir, '<tmp>').replace(ROOT, '.')).join(' + ');
    if (before === after) {
      console.log(`same       ${label} (${(after.length / 1e6).toFixed(1)} MB of JSON)`);
      continue;
    }
    differ++;
    let at = 0;
    while (before[at] === after[at]) at++;
    console.log(`DIFFERENT  ${label}\n  old: …${before.slice(Math.max(0, at - 120), at + 120)}\n  new: …${after.slice(Math.max(0, at - 120), at + 120)}`);
  }
  console.log(differ === 0 ? `all ${inputs.length} outputs identical` : `${differ} of ${inputs.length} outputs differ`);
  process.exitCode = differ === 0 ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
