/**
 * Sources: files and folders, each path a layer, each file in the dialect it
 * is detected (or told) to be in. Reading never throws: missing paths,
 * unreadable and oversized files, and files in no known format all become
 * diagnostics.
 * @module
 */
import { constants as bufferConstants } from 'node:buffer';
import { readdirSync, statSync, type Stats } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { detectDialect, dialectIds, getDialect } from '../dialects/lookup.js';
import type { Dialect, DialectId, ImportedDocument } from '../dialects/types.js';
import { diagnostic, type Diagnostic } from '../model/diagnostics.js';
import { createImportContext } from '../source/context.js';
import { displayPath } from '../source/paths.js';
import { readFileLimited } from '../source/read-file.js';
import { at, DEFAULT_LIMITS, parseSource, type ParseLimits, type SourceFile } from '../source/source.js';
import { errorMessage } from '../model/errors.js';
import { tieredFiles } from './override-order.js';
import { bytesHash, ImportCache } from './import-cache.js';

const { MAX_STRING_LENGTH } = bufferConstants;

/** File endings read in a folder walk. */
const MANIFEST_ENDINGS = ['.json', '.yaml', '.yml'];
/** Folders never walked into. */
const SKIPPED_FOLDERS = new Set(['node_modules', '.git', '.toolcap']);

/**
 * The folder-walk rules, in one place: whoever else needs to know which files
 * make up a layer (the registry's watcher and change detection) asks here.
 */
export function isWalkedFolder(name: string): boolean {
  return !SKIPPED_FOLDERS.has(name) && !name.startsWith('.');
}

/** Is this file name one a folder walk reads? */
export function isManifestFileName(name: string): boolean {
  const lower = name.toLowerCase();
  return MANIFEST_ENDINGS.some((e) => lower.endsWith(e));
}
/** Most files read from one folder walk. @default 20000 */
export const MAX_FILES_PER_LAYER = 20_000;

export { displayPath } from '../source/paths.js';

export interface LoadOptions {
  /** Read every file as this dialect instead of detecting it (a layer's own `dialect` wins). */
  dialect?: DialectId;
  limits?: Partial<ParseLimits>;
  /** Parse and import results kept by content hash between loads (the registry's reloads); absent: every file is read afresh. */
  cache?: ImportCache<LoadedDocument>;
  /**
   * Content hashes (sha256 hex of the bytes, absolute path -> hash) of files
   * as the caller has just read them (the registry's change detection): a
   * file whose hash here is the one its cached import was kept under is not
   * read or hashed again. Only consulted with a `cache`.
   */
  knownHashes?: ReadonlyMap<string, string>;
}

/** One file, parsed and imported. */
export interface LoadedDocument {
  file: SourceFile;
  dialect: Dialect;
  imported: ImportedDocument;
  /**
   * 0 (or absent) for a base file; 1, 2, ... for override files, which apply
   * after the layer's base files, one tier each (see load/override-order.ts).
   */
  tier?: number;
}

/**
 * One layer as configured: a file or folder, optionally read as one dialect,
 * optionally a persona folder (every tool in it is scoped to that persona).
 */
export interface LayerSpec {
  path: string;
  /** Read every file of this layer as this dialect instead of detecting it. */
  dialect?: DialectId;
  /** Scope every tool of this layer to this persona (`scope.personas: [persona]`). */
  persona?: string;
  /**
   * Tools discovered from a server (MCP): what the server reports. Later
   * (reviewed) layers override them, except that the server's own hints set
   * a floor the reviewed manifest cannot go below (see registry/floors.ts).
   */
  discovered?: boolean;
  /**
   * A layer held in memory instead of files (the learned layer): its
   * documents, read each time the layer loads. `path` then only names it.
   */
  texts?: () => readonly LayerText[];
  /** Learned tools (runtime/learned-tools.ts): they may not loosen an earlier layer's tool (registry/learned-floor.ts). */
  learned?: boolean;
}

/** One in-memory document of a layer: its name (shown as its file), its text, and the dialect it is in. */
export interface LayerText {
  name: string;
  text: string;
  dialect: DialectId;
}

/** A layer: a bare path, or a path with its own dialect or persona. */
export type LayerInput = string | LayerSpec;

/** The path of a layer input. */
export const layerPath = (input: LayerInput): string => (typeof input === 'string' ? input : input.path);

/** One path given by the user: a file or a folder, in layer order. */
export interface Layer {
  index: number;
  source: string;
  /** The persona a persona folder's tools are scoped to. */
  persona?: string;
  /** A layer of discovered tools (see LayerSpec.discovered). */
  discovered?: boolean;
  /** A layer of learned tools (see LayerSpec.learned). */
  learned?: boolean;
  documents: LoadedDocument[];
}

export interface LoadResult {
  layers: Layer[];
  diagnostics: Diagnostic[];
  /** True when a path could not be read at all (CLI exit 2). */
  unreadable: boolean;
}

/**
 * Load each path as a layer, in order.
 * @example
 * loadLayers(['examples/pylot/config/tool_manifest.yaml', 'overrides/'])
 * loadLayers(['shared/', { path: 'personas/atlas/', persona: 'atlas' }, { path: 'legacy/', dialect: 'atlas' }])
 */
export function loadLayers(inputs: readonly LayerInput[], options: LoadOptions = {}): LoadResult {
  const limits = { ...DEFAULT_LIMITS, ...options.limits } satisfies ParseLimits;
  const diagnostics: Diagnostic[] = [];
  const layers: Layer[] = [];
  let unreadable = false;
  const referenced = new Set<string>();
  for (const name of new Set([options.dialect, ...inputs.map((i) => (typeof i === 'string' ? undefined : i.dialect))])) {
    if (name !== undefined && !getDialect(name)) {
      diagnostics.push(diagnostic('UNKNOWN_DIALECT', `Unknown dialect "${name}".`, { hint: `Use one of: ${dialectIds().join(', ')}.` }));
      return { layers, diagnostics, unreadable: true };
    }
  }
  inputs.forEach((input, index) => {
    const spec: LayerSpec = typeof input === 'string' ? { path: input } : input;
    const path = spec.path;
    const dialectId = spec.dialect ?? options.dialect;
    const forced = dialectId === undefined ? undefined : getDialect(dialectId);
    const layer: Layer = {
      index,
      source: displayPath(resolve(path)),
      documents: [],
      ...(spec.persona !== undefined ? { persona: spec.persona } : {}),
      ...(spec.discovered ? { discovered: true } : {}),
      ...(spec.learned ? { learned: true } : {}),
    };
    layers.push(layer);
    if (spec.texts) {
      for (const t of spec.texts()) {
        const dialect = getDialect(t.dialect);
        const doc = importText(t.name, t.text, { explicit: true, limits, root: process.cwd(), referenced, ...(dialect ? { dialect } : {}) }, diagnostics);
        if (doc) layer.documents.push(doc);
      }
      return;
    }
    let stat: Stats;
    try {
      stat = statSync(path);
    } catch {
      unreadable = true;
      diagnostics.push(
        diagnostic('PATH_NOT_FOUND', `No such file or folder: ${path}`, { file: path, hint: 'Check the path; it is relative to the current folder.' }),
      );
      return;
    }
    const root = resolve(stat.isDirectory() ? path : join(path, '..'));
    const files = stat.isDirectory() ? walk(resolve(path), diagnostics) : [resolve(path)];
    for (const { path: file, tier } of tieredFiles(files)) {
      const fileOptions: FileOptions = { explicit: !stat.isDirectory(), limits, root, referenced, ...(forced ? { dialect: forced } : {}) };
      const doc = loadFile(file, fileOptions, diagnostics, spec.persona, options.cache, options.knownHashes);
      if (doc === 'unreadable') unreadable = true;
      else if (doc) layer.documents.push(tier > 0 ? { ...doc, tier } : doc);
    }
  });
  // A file a manifest refers to (inputSchemaRef, $ref) is not a stray: no "skipped" note for it.
  const kept = diagnostics.filter((d) => !(d.code === 'NOT_A_MANIFEST' && d.file !== undefined && referenced.has(d.file)));
  options.cache?.sweep();
  return { layers, diagnostics: kept, unreadable };
}

/**
 * A persona folder's tools belong to its persona. A tool that names other
 * personas and not this one is a contradiction: the folder wins, with a
 * warning at the tool. A tool that already names this persona keeps its list.
 */
function scopeToPersona(doc: LoadedDocument, persona: string, diagnostics: Diagnostic[]): void {
  for (const entry of doc.imported.tools) {
    const declared = entry.value.scope?.personas;
    if (declared?.includes(persona)) continue;
    if (declared !== undefined && declared.length > 0) {
      diagnostics.push(
        diagnostic('INVALID_VALUE', `"${entry.value.name}" is in the folder of persona "${persona}" but is scoped to ${declared.join(', ')}; the folder wins.`, {
          severity: 'warning',
          ...at(doc.file, entry.pointer),
          hint: `Move the tool out of the persona folder, or scope it to ${persona}.`,
        }),
      );
    }
    entry.value = { ...entry.value, scope: { ...entry.value.scope, personas: [persona] } };
  }
}

/** Manifest candidates below a folder, sorted, without following links. */
function walk(folder: string, diagnostics: Diagnostic[]): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      diagnostics.push(diagnostic('FILE_UNREADABLE', `Cannot read the folder ${displayPath(dir)}.`, { file: displayPath(dir) }));
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        diagnostics.push(
          diagnostic('NOT_A_MANIFEST', 'Skipped: symbolic links are not followed in a folder walk.', { file: displayPath(full) }),
        );
      } else if (entry.isDirectory()) {
        if (isWalkedFolder(entry.name)) visit(full);
      } else if (entry.isFile() && isManifestFileName(entry.name)) {
        if (found.length >= MAX_FILES_PER_LAYER) {
          diagnostics.push(
            diagnostic('FILE_TOO_LARGE', `More than ${MAX_FILES_PER_LAYER} manifest files below ${displayPath(folder)}; the rest are skipped.`, {
              file: displayPath(full),
              hint: 'Point toolcap at a smaller folder.',
            }),
          );
          return;
        }
        found.push(full);
      }
    }
  };
  visit(folder);
  return found;
}

/** How one document is read (see {@link importText}). */
export interface FileOptions {
  explicit: boolean;
  limits: ParseLimits;
  root: string;
  referenced: Set<string>;
  dialect?: Dialect;
  /** Counts the other files the import asked for (references): such an import is not cached by its own hash. */
  reads?: { count: number };
}

/** Read, parse, detect and import one file (scoped to a persona folder's persona), through the cache when there is one. */
function loadFile(
  path: string,
  options: FileOptions,
  diagnostics: Diagnostic[],
  persona: string | undefined,
  cache: ImportCache<LoadedDocument> | undefined,
  knownHashes: ReadonlyMap<string, string> | undefined,
): LoadedDocument | 'unreadable' | undefined {
  const shown = displayPath(path);
  const how = cache ? ImportCache.key({ e: options.explicit, l: options.limits, r: options.root, d: options.dialect?.id, p: persona }) : '';
  const known = knownHashes?.get(path);
  // the caller read this file just now and it hashed as when its import was kept: no need to read it again
  const kept = cache && known !== undefined ? cache.peek(path, known, how) : undefined;
  if (kept) {
    diagnostics.push(...kept.diagnostics);
    return kept.doc;
  }
  // one open file judged and read (source/read-file.ts): a name swapped for a FIFO or a huge file after the walk
  // saw it can neither block the read nor take it past the limit
  const read = readFileLimited(path, Math.min(options.limits.maxBytes, MAX_STRING_LENGTH));
  if (!read.ok) {
    if (read.problem === 'too-large') {
      // past MAX_STRING_LENGTH the text cannot be one string: the read would fail as if the file could not be opened
      const why = read.size > options.limits.maxBytes ? `over the limit of ${options.limits.maxBytes}` : `more than one string can hold (${MAX_STRING_LENGTH} characters)`;
      diagnostics.push(diagnostic('FILE_TOO_LARGE', `The file is ${read.size} bytes, ${why}.`, { file: shown, hint: read.size > options.limits.maxBytes ? 'Split the manifest, or raise limits.maxBytes.' : 'Split the manifest.' }));
      return undefined;
    }
    diagnostics.push(
      read.problem === 'not-a-file'
        ? diagnostic('FILE_UNREADABLE', `${shown} is not a regular file.`, { file: shown, hint: 'Give toolcap manifest files or folders.' })
        : diagnostic('FILE_UNREADABLE', `Cannot read ${shown}.`, { file: shown, hint: 'Check the permissions.' }),
    );
    return options.explicit ? 'unreadable' : undefined;
  }
  const bytes = read.bytes;
  const text = bytes.toString('utf8');
  const importIt = (into: Diagnostic[], reads?: { count: number }) => {
    const doc = importText(shown, text, reads ? { ...options, reads } : options, into, path.split(sep).join('/'));
    if (doc && persona !== undefined) scopeToPersona(doc, persona, into);
    return doc;
  };
  if (!cache) return importIt(diagnostics);
  const hash = bytesHash(bytes);
  const hit = cache.get(path, hash, how);
  if (hit) {
    diagnostics.push(...hit.diagnostics);
    return hit.doc;
  }
  const found: Diagnostic[] = [];
  const reads = { count: 0 };
  const doc = importIt(found, reads);
  diagnostics.push(...found);
  if (reads.count === 0) cache.set(path, hash, how, doc, found);
  else cache.delete(path);
  return doc;
}

/**
 * Parse, detect and import one document's text: what every file goes
 * through, and an in-memory document too (a learned tool), so there is one
 * reading of each dialect.
 */
export function importText(shown: string, text: string, options: FileOptions, diagnostics: Diagnostic[], path: string = shown): LoadedDocument | undefined {
  const parsed = parseSource(shown, text, options.limits);
  diagnostics.push(...parsed.diagnostics);
  if (!parsed.file) return undefined;
  const file = parsed.file;
  const dialect = options.dialect ?? detectDialect(file.value, { path })?.dialect;
  if (!dialect) {
    const tried = dialectIds().join(', ');
    diagnostics.push(
      options.explicit
        ? diagnostic('UNKNOWN_FORMAT', `Not a manifest in any known format (tried: ${tried}).`, {
            file: shown,
            line: 1,
            column: 1,
            hint: 'Name the format with --dialect, or check the file against docs/dialects/.',
          })
        : diagnostic('NOT_A_MANIFEST', `Skipped: not a manifest in any known format (tried: ${tried}).`, { file: shown }),
    );
    return undefined;
  }
  const context = createImportContext(file, { limits: options.limits, root: options.root, referenced: options.referenced });
  const reads = options.reads;
  if (reads) {
    const readRelative = context.readRelative.bind(context);
    context.readRelative = (relativePath, fromPointer) => {
      reads.count++;
      return readRelative(relativePath, fromPointer);
    };
  }
  let imported: ImportedDocument;
  try {
    imported = dialect.import(context);
  } catch (error) {
    // A dialect must report, not throw; if one does, that is our bug, and the file is still not lost silently.
    diagnostics.push(
      diagnostic('PARSE_ERROR', `The ${dialect.id} importer failed on this file: ${errorMessage(error)}.`, {
        file: shown,
        hint: 'This is a toolcap bug; please report it with the file.',
      }),
    );
    return undefined;
  }
  diagnostics.push(...context.diagnostics);
  return { file, dialect, imported };
}
