/**
 * Shared pieces of the adversarial suite: one good document per dialect (read
 * from the test fixtures), writing corrupted copies where each dialect's
 * detector accepts them, running the CLI with the invariants every run must
 * keep (no exit 70, no stack trace), and an out-of-process runner for inputs
 * that may block the event loop.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { parse, stringify } from 'yaml';
import type { DialectId } from '../../src/dialects/types.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import { TOOL_NAME_PATTERN } from '../../src/model/vocabulary.js';
import { cli } from '../cli/helpers.js';

export const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
export const FIXTURES = join(REPO, 'test', 'fixtures');
export const TOOL_NAME = new RegExp(TOOL_NAME_PATTERN);

/** A JSON object. Values are `any` on purpose: these documents are built to be wrong. */
export type Obj = Record<string, any>;

const created: string[] = [];

/** A fresh folder under the OS temp folder, removed by {@link removeTmp}. */
export function tmp(prefix = 'toolcap-adv-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Remove every folder {@link tmp} made (the suite writes several 40 MB files). For afterAll. */
export function removeTmp(): void {
  for (const dir of created.splice(0)) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort: a folder left behind is only disk space
    }
  }
}

/** Write `text` at `rel` below `dir`, creating folders; returns the absolute path. */
export function put(dir: string, rel: string, text: string | Buffer): string {
  const path = join(dir, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** JSON-ish type name, the way the brief classifies "a value of the wrong type". */
export function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Is `pointer` the entry at `entry` or inside it? */
export function under(pointer: string | undefined, entry: string): boolean {
  return pointer !== undefined && (pointer === entry || pointer.startsWith(`${entry}/`));
}

/** The six dialects this suite covers. */
export type CoreDialect = Extract<DialectId, 'toolcap' | 'atlas' | 'capability' | 'pylot' | 'xena' | 'shinkai'>;

/** How one dialect's documents look, and where a corrupted copy must be written to be detected. */
export interface DialectCase {
  id: CoreDialect;
  /** The good fixture the corrupted copies start from. */
  fixture: string;
  /** Where to write a copy (relative to a fresh tmp folder) so the detector picks this dialect. */
  file: string;
  format: 'json' | 'yaml';
  /** The key holding the tool's name (Xena: id). */
  nameKey: string;
  /** A fresh copy of the good document. */
  load(): Obj | Obj[];
  /** The tool entries of a document (Shinkai: the document itself). */
  list(doc: Obj | Obj[]): Obj[];
  /** Pointer of tool entry `i`. */
  pointer(i: number): string;
  /** A small valid tool entry (Shinkai: a whole document). */
  minimal(i: number): Obj;
  /** A document holding these entries; undefined when the format has one tool per file. */
  wrap?(entries: Obj[]): Obj | Obj[];
  /** Files the manifest needs next to it. */
  prepare?(dir: string): void;
}

const readDoc = (path: string): Obj | Obj[] => parse(readFileSync(join(FIXTURES, path), 'utf8')) as Obj | Obj[];

const XENA_ENTRY = (id: string): Obj => ({
  id,
  name: 'Adversarial Tool',
  version: '1.0.0',
  description: 'A tool built by the adversarial suite.',
  enabled: true,
  tags: [],
  metadata: {},
  surface: { domains: ['coding'], entities: [], operations: ['read'], taskRoles: [], authority: 1, freshnessSlaSec: 1 },
  capabilities: [],
  deterministic: true,
  riskLevel: 'low',
});

export const DIALECTS: readonly DialectCase[] = [
  {
    id: 'toolcap',
    fixture: 'core/base/tools.yaml',
    file: 'tools.yaml',
    format: 'yaml',
    nameKey: 'name',
    load: () => readDoc('core/base/tools.yaml'),
    list: (doc) => (doc as Obj)['tools'] as Obj[],
    pointer: (i) => `/tools/${i}`,
    minimal: (i) => ({ name: `t${i}`, effects: { mode: 'read', sideEffects: 'none' } }),
    wrap: (tools) => ({ toolcap: 1, tools }),
  },
  {
    id: 'atlas',
    fixture: 'atlas/modules/Tools/tool_maps/functions.json',
    file: 'modules/Tools/tool_maps/functions.json',
    format: 'json',
    nameKey: 'name',
    load: () => readDoc('atlas/modules/Tools/tool_maps/functions.json'),
    list: (doc) => doc as Obj[],
    pointer: (i) => `/${i}`,
    minimal: (i) => ({ name: `t${i}`, side_effects: 'none' }),
    wrap: (tools) => tools,
  },
  {
    id: 'capability',
    // The list form, so each entry has its own pointer (/0, /1, ...).
    fixture: 'capability/capabilities.yaml',
    file: 'capabilities.yaml',
    format: 'yaml',
    nameKey: 'name',
    load: () => readDoc('capability/capabilities.yaml'),
    list: (doc) => doc as Obj[],
    pointer: (i) => `/${i}`,
    minimal: (i) => ({ name: `t.x${i}`, summary: 's', capabilities: { mode: 'read' } }),
    wrap: (tools) => tools,
    prepare: (dir) => cpSync(join(FIXTURES, 'capability', 'schemas'), join(dir, 'schemas'), { recursive: true }),
  },
  {
    id: 'pylot',
    fixture: 'pylot/starter/tool_manifest.json',
    file: 'config/tool_manifest.json',
    format: 'json',
    nameKey: 'name',
    load: () => readDoc('pylot/starter/tool_manifest.json'),
    list: (doc) => (doc as Obj)['tools'] as Obj[],
    pointer: (i) => `/tools/${i}`,
    minimal: (i) => ({ name: `t${i}`, description: 'd', module: 'a.b', permissions: ['read_repo'] }),
    wrap: (tools) => ({ schema_version: '1.0', metadata: { name: 'n', description: 'd' }, tools }),
  },
  {
    id: 'xena',
    fixture: 'xena/wrapped/config/registry/tools.json',
    file: 'config/registry/tools.json',
    format: 'json',
    nameKey: 'id',
    load: () => readDoc('xena/wrapped/config/registry/tools.json'),
    list: (doc) => (doc as Obj)['tools'] as Obj[],
    pointer: (i) => `/tools/${i}`,
    minimal: (i) => XENA_ENTRY(`t${i}`),
    wrap: (tools) => ({ tools }),
  },
  {
    id: 'shinkai',
    fixture: 'shinkai/full/metadata.json',
    file: 'web-digest/metadata.json',
    format: 'json',
    nameKey: 'name',
    load: () => readDoc('shinkai/full/metadata.json'),
    list: (doc) => [doc as Obj],
    pointer: () => '',
    minimal: (i) => ({ name: `Tool ${i}`, tool_type: 'typescript', parameters: { type: 'object', properties: {} } }),
  },
];

export const dialect = (id: CoreDialect): DialectCase => DIALECTS.find((d) => d.id === id)!;

export function serialize(doc: unknown, format: 'json' | 'yaml'): string {
  return format === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : stringify(doc, { lineWidth: 0 });
}

export interface Written {
  dir: string;
  file: string;
  /** Extra CLI arguments needed to read it (--dialect when the path cannot say). */
  args: string[];
}

/**
 * Write a document of dialect `c` into a fresh tmp folder. In the dialect's
 * own format it goes where detection finds it; in the other format (YAML for
 * the JSON-only dialects) the dialect is named with --dialect.
 */
export function writeCase(c: DialectCase, doc: unknown, format: 'json' | 'yaml' = c.format, text?: string, into?: string): Written {
  const dir = into ?? tmp(`toolcap-adv-${c.id}-`);
  mkdirSync(dir, { recursive: true });
  c.prepare?.(dir);
  const native = format === c.format;
  const rel = native ? c.file : c.file.replace(/\.(json|ya?ml)$/, format === 'json' ? '.json' : '.yaml');
  const file = put(dir, rel, text ?? serialize(doc, format));
  return { dir, file, args: native ? [] : ['--dialect', c.id] };
}

/** Output that betrays a crash rather than a diagnostic. */
export function expectNoCrash(out: { code: number; stdout: string; stderr: string }): void {
  expect(out.code, out.stderr).not.toBe(70);
  expect(out.stderr).not.toMatch(/internal error/i);
  for (const text of [out.stdout, out.stderr]) expect(text).not.toMatch(/\n\s+at [^\n]*:\d+:\d+\)?\n/);
}

export interface ValidateResult {
  code: number;
  ok: boolean;
  tools: number;
  diagnostics: Diagnostic[];
  stderr: string;
}

/** `toolcap validate --json`, checked for crashes. */
export async function validate(...args: string[]): Promise<ValidateResult> {
  const out = await cli('validate', ...args, '--json');
  expectNoCrash(out);
  const parsed = JSON.parse(out.stdout) as { ok: boolean; tools: number; diagnostics: Diagnostic[] };
  return { code: out.code, ...parsed, stderr: out.stderr };
}

export interface InspectTool {
  name: string;
  [key: string]: unknown;
}

/** `toolcap inspect --json`, checked for crashes; `doc` is undefined on exit 2. */
export async function inspect(...args: string[]): Promise<{ code: number; doc?: { tools: InspectTool[]; provenance: Record<string, unknown> }; stdout: string; stderr: string }> {
  const out = await cli('inspect', ...args, '--json');
  expectNoCrash(out);
  if (out.code === 2) return out;
  return { ...out, doc: JSON.parse(out.stdout) as { tools: InspectTool[]; provenance: Record<string, unknown> } };
}

/** Own property names of the built-in prototypes, to prove nothing was added. */
export function prototypeSnapshot(): string[] {
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype].map((p) =>
    Object.getOwnPropertyNames(p).sort().join(','),
  );
}

export function expectNoPollution(before: string[]): void {
  expect(({} as Obj)['polluted']).toBeUndefined();
  expect((Object.prototype as Obj)['polluted']).toBeUndefined();
  expect(([] as unknown as Obj)['polluted']).toBeUndefined();
  expect(prototypeSnapshot()).toEqual(before);
}

/** Every file below `dir` (not following links), as absolute paths. */
export function listFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<{ name: string; parentPath?: string; path?: string; isDirectory(): boolean }>)
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath ?? e.path ?? dir, e.name))
    .sort();
}

/** Milliseconds taken by `run`. */
export interface IsolatedResult {
  /** Undefined when the process was killed for taking too long. */
  result?: { code: number; stdout: string; stderr: string };
  timedOut: boolean;
  /** Milliseconds the command itself ran (from the child's ready signal). */
  ms: number;
  raw: string;
}

let bundle: Promise<string> | undefined;

/**
 * The CLI from src/, bundled once with esbuild (which vite already brings)
 * into one CommonJS file, so a child process starts in well under a second.
 * It prints a ready line once loaded, then the result of one run as JSON.
 */
function cliBundle(): Promise<string> {
  bundle ??= (async () => {
    const { build } = await import('esbuild');
    const dir = tmp('toolcap-adv-bundle-');
    const entry = put(
      dir,
      'entry.ts',
      [
        `import { run } from ${JSON.stringify(join(REPO, 'src', 'cli', 'program.ts'))};`,
        'void (async () => {',
        "  let stdout = '';",
        "  let stderr = '';",
        "  process.stdout.write('\\n@@READY@@\\n');",
        "  const code = await run(JSON.parse(process.argv[2] ?? '[]') as string[], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });",
        "  process.stdout.write('\\n@@RESULT@@' + JSON.stringify({ code, stdout: stdout.slice(0, 20000), stderr: stderr.slice(0, 20000) }));",
        '  process.exit(0);',
        '})();',
      ].join('\n'),
    );
    const outfile = join(dir, 'toolcap.cjs');
    // module before main: jsonc-parser's UMD build cannot be bundled, its ESM build can
    await build({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'cjs', mainFields: ['module', 'main'], absWorkingDir: REPO, logLevel: 'silent' });
    return outfile;
  })();
  return bundle;
}

/**
 * Run the CLI (bundled from src/) in a child process, killed with SIGKILL
 * when the command has run `limitMs`, counted from the moment the child has
 * loaded toolcap. For inputs that may block the event loop, which an
 * in-process test could not interrupt.
 */
export async function runIsolated(argv: readonly string[], limitMs = 10_000, startupMs = 30_000): Promise<IsolatedResult> {
  const cliFile = await cliBundle();
  return new Promise((done) => {
    const child = spawn(process.execPath, [cliFile, JSON.stringify(argv)], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let raw = '';
    let ready: number | undefined;
    let timedOut = false;
    const kill = () => {
      timedOut = true;
      child.kill('SIGKILL');
    };
    let timer = setTimeout(kill, startupMs);
    child.stdout.on('data', (b: Buffer) => {
      raw += b.toString();
      if (ready === undefined && raw.includes('@@READY@@')) {
        ready = performance.now();
        clearTimeout(timer);
        timer = setTimeout(kill, limitMs);
      }
    });
    child.stderr.on('data', (b: Buffer) => (raw += b.toString()));
    child.on('close', () => {
      clearTimeout(timer);
      const ms = ready === undefined ? 0 : performance.now() - ready;
      const at = raw.lastIndexOf('@@RESULT@@');
      const result = at >= 0 ? (JSON.parse(raw.slice(at + '@@RESULT@@'.length)) as { code: number; stdout: string; stderr: string }) : undefined;
      done({ ...(result ? { result } : {}), timedOut, ms, raw: raw.slice(0, 4000) });
    });
  });
}

/** Is the name a valid canonical tool name? */
export const validName = (name: string): boolean => TOOL_NAME.test(name);
