// The catalogs of the conversational task set (bench/tasks/README.md), loaded
// the way a user loads them: a layer per corpus file, read by toolcap's own
// dialect, merged and completed by `buildCatalog`. ToolEmu has no dialect of
// its own, so its toolkits are written out once as OpenAI functions (name,
// summary, parameters: copied, nothing invented) and that file is the layer.
// The ground-truth mode labels in bench/tasks/modes.json never reach the
// tools: they are the answer key the harness scores with.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CORPUS } from './corpus.mjs';

const TASKS_DIR = new URL('./tasks/', import.meta.url);

/**
 * Where each catalog comes from: corpus paths (files or folders) and the
 * dialect that reads them, or a converter for a catalog no dialect reads.
 */
export const CATALOGS = {
  'github-mcp': { paths: ['mcp-github-server/tools.json'], dialect: 'mcp' },
  slack: { paths: ['openapi/slack.web-api.swagger2.json'], dialect: 'openapi' },
  'mcp-reference': { paths: ['mcp-reference-servers'], dialect: 'mcp' },
  toolemu: { convert: () => toolemuFunctions(JSON.parse(readFileSync(join(CORPUS, 'toolemu/all_toolkits.json'), 'utf8'))), dialect: 'openai' },
};

/** The catalog names, in report order. */
export const catalogNames = () => Object.keys(CATALOGS);

/** A ToolEmu `[{name, type, description, required}]` list as a JSON Schema object. */
function listSchema(list) {
  const items = Array.isArray(list) ? list : [];
  const properties = Object.fromEntries(items.map((p) => [p.name, { type: p.type, description: p.description }]));
  const required = items.filter((p) => p.required === true).map((p) => p.name);
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/**
 * ToolEmu toolkits as OpenAI functions, one per tool, named as ToolEmu's agents
 * call them (`<name_for_model><tool name>`, e.g. `GmailSendEmail`, which toolcap
 * names `gmail_send_email`), with `summary` as description.
 */
export function toolemuFunctions(toolkits) {
  return toolkits.flatMap((kit) =>
    kit.tools.map((t) => ({ name: `${kit.name_for_model}${t.name}`, description: t.summary, parameters: listSchema(t.parameters) })),
  );
}

/**
 * The layers `buildCatalog` reads for a catalog. A converted catalog is
 * written once to the temp folder under a name holding its content hash
 * (written aside, then renamed), so runs share it and nothing piles up.
 */
export function catalogLayers(name) {
  const source = CATALOGS[name];
  if (!source) throw new Error(`unknown catalog "${name}" (known: ${catalogNames().join(', ')})`);
  if (source.paths) return source.paths.map((p) => ({ path: join(CORPUS, p), dialect: source.dialect }));
  const text = JSON.stringify(source.convert());
  const dir = join(tmpdir(), 'toolcap-bench-catalogs');
  const file = join(dir, `${name}-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.json`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const aside = `${file}.${process.pid}.tmp`;
    writeFileSync(aside, text);
    renameSync(aside, file);
  }
  return [{ path: file, dialect: source.dialect }];
}

const cache = new Map();
/**
 * The canonical tools of a catalog, built by toolcap: `buildCatalog(layers)`
 * then `personaTools(catalog)`. `lib` defaults to the built package
 * (`dist/index.js`, `npm run build` first); tests pass the functions from src.
 * Throws when the catalog has an error diagnostic.
 * @example const tools = await loadCatalog('slack');
 */
export async function loadCatalog(name, lib) {
  const key = lib ? undefined : name;
  if (key && cache.has(key)) return cache.get(key);
  const { buildCatalog, personaTools } = lib ?? (await import('../dist/index.js'));
  const result = buildCatalog(catalogLayers(name));
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(`catalog ${name}: ${errors.length} errors, first: ${errors[0].code} ${errors[0].message}`);
  const tools = personaTools(result.catalog);
  if (key) cache.set(key, tools);
  return tools;
}

let modes;
/** The ground-truth labels of bench/tasks/modes.json: `{catalog: {tool: 'read'|'write'}}`. */
export function modeLabels() {
  modes ??= JSON.parse(readFileSync(new URL('modes.json', TASKS_DIR), 'utf8'));
  return modes;
}

/**
 * A tool's true mode: its label in modes.json, else its loaded
 * `effects.mode`, where `mixed` counts as write (and no mode as write too).
 */
export function truthMode(catalog, tool) {
  const label = modeLabels()[catalog]?.[tool.name];
  if (label) return label;
  return tool.effects?.mode === 'read' ? 'read' : 'write';
}

/** The extra dev-only task files of bench/tasks (README.md says how each was written). */
export const EXTRA_DEV_SETS = Object.freeze({ 'dev reads': 'conversational-dev-reads.jsonl' });

/**
 * The tasks of bench/tasks/conversational.jsonl (or another task `file` of
 * bench/tasks in the same format), optionally only one split and/or one
 * catalog: `{id, catalog, split, intent, task, gold, note?}`.
 */
export function conversationalTasks({ split, catalog, file = 'conversational.jsonl' } = {}) {
  return readFileSync(new URL(file, TASKS_DIR), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l))
    .filter((t) => (split === undefined || t.split === split) && (catalog === undefined || t.catalog === catalog));
}
