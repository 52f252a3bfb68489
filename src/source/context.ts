/**
 * The import context handed to a dialect: reporting at source positions, and
 * reading files a manifest refers to, confined to the layer's root folder.
 * @module
 */
import { realpathSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { diagnostic, type Diagnostic, type DiagnosticCode, type Severity } from '../model/diagnostics.js';
import { displayPath } from './paths.js';
import { readFileLimited } from './read-file.js';
import { at, DEFAULT_LIMITS, parseSource, type ParseLimits, type SourceFile } from './source.js';

/** Everything an importer may use. */
export interface ImportContext {
  readonly file: SourceFile;
  /** Persona implied by where the file lives (ATLAS folder convention), if any. */
  readonly persona?: string;
  readonly limits: ParseLimits;
  /** Record a finding at a pointer of this file; `key` points at the key rather than the value. */
  report(code: DiagnosticCode, message: string, pointer: string, extra?: { hint?: string; key?: boolean; severity?: Severity; field?: string }): void;
  /**
   * Read and parse another file named relative to this one (e.g. `inputSchemaRef`).
   * Problems are reported as diagnostics; undefined when nothing usable was read.
   */
  readRelative(relativePath: string, fromPointer: string): unknown;
  readonly diagnostics: Diagnostic[];
}

export interface ContextOptions {
  persona?: string;
  limits?: ParseLimits;
  /** Files referred to must lie inside this folder. @default the file's folder */
  root?: string;
  /** Collects the display paths of files read as references (so a folder walk does not call them strays). */
  referenced?: Set<string>;
}

/** An {@link ImportContext} for one parsed file. */
export function createImportContext(file: SourceFile, options: ContextOptions = {}): ImportContext {
  const diagnostics: Diagnostic[] = [];
  const limits = options.limits ?? DEFAULT_LIMITS;
  const root = resolve(options.root ?? dirname(file.path));
  let rootReal: string | undefined;
  const realRoot = () => {
    try {
      rootReal ??= realpathSync(root);
    } catch {
      rootReal = root;
    }
    return rootReal;
  };
  const context: ImportContext = {
    file,
    limits,
    diagnostics,
    ...(options.persona !== undefined ? { persona: options.persona } : {}),
    report(code, message, pointer, extra = {}) {
      const d = diagnostic(code, message, at(file, pointer, extra.key ?? false));
      if (extra.hint !== undefined) d.hint = extra.hint;
      if (extra.severity !== undefined) d.severity = extra.severity;
      if (extra.field !== undefined) d.field = extra.field;
      diagnostics.push(d);
    },
    readRelative(relativePath, fromPointer) {
      const target = resolve(dirname(file.path), relativePath);
      const fail = (message: string, hint: string) => {
        context.report('REF_NOT_FOUND', message, fromPointer, { hint });
        return undefined;
      };
      const inside = (path: string, folder: string) => path === folder || path.startsWith(folder + sep);
      const outside = () => fail(`"${relativePath}" points outside ${relative(process.cwd(), root) || '.'}.`, 'Keep referenced files inside the manifest folder.');
      if (!inside(target, root)) return outside();
      // Symbolic links are resolved before the check, so a link cannot lead outside either.
      let real: string;
      try {
        real = realpathSync(target);
      } catch {
        return fail(`"${relativePath}" does not exist (looked for ${relative(process.cwd(), target)}).`, 'Fix the path; it is relative to the manifest file.');
      }
      if (!inside(real, realRoot())) return outside();
      const read = readFileLimited(real, limits.maxBytes);
      if (!read.ok) {
        if (read.problem === 'not-a-file') return fail(`"${relativePath}" is not a file.`, 'Point at a JSON or YAML file.');
        if (read.problem === 'too-large') return fail(`"${relativePath}" is larger than ${limits.maxBytes} bytes.`, 'Referenced files share the size limit of manifests.');
        return fail(`"${relativePath}" does not exist (looked for ${relative(process.cwd(), target)}).`, 'Fix the path; it is relative to the manifest file.');
      }
      const shown = displayPath(target);
      options.referenced?.add(shown);
      const parsed = parseSource(shown, read.bytes.toString('utf8'), limits);
      diagnostics.push(...parsed.diagnostics);
      return parsed.file?.value;
    },
  };
  return context;
}
