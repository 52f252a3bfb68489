/**
 * Turning bytes into a value: JSON or YAML, within documented limits, with
 * source positions looked up only when a diagnostic needs one (so the happy
 * path costs little more than JSON.parse).
 * @module
 */
import { parse as parseJsonc, type ParseError, printParseErrorCode } from 'jsonc-parser';
import { inspectParsed, jsonLocator, offsetAtDepth } from './json-positions.js';
import { isAlias, isMap, isSeq, parseDocument, type Document, type Node as YamlNode } from 'yaml';
import { diagnostic, joinPointer, splitPointer, type Diagnostic } from '../model/diagnostics.js';
import { aliasTargets, pairByKey, yamlProblems } from './yaml-checks.js';

/** Limits that keep hostile input from exhausting memory or the stack. */
export interface ParseLimits {
  /** Largest file read, in bytes. @default 33554432 (32 MiB) */
  maxBytes: number;
  /** Deepest nesting of arrays and objects. @default 64 */
  maxDepth: number;
  /** YAML alias expansions allowed per document (yaml's maxAliasCount). @default 100 */
  maxAliasCount: number;
}

export const DEFAULT_LIMITS: ParseLimits = { maxBytes: 32 * 1024 * 1024, maxDepth: 64, maxAliasCount: 100 };

export type SourceFormat = 'json' | 'yaml';

/** A parsed file: its value, and where every part of it came from. */
export interface SourceFile {
  readonly path: string;
  readonly text: string;
  readonly format: SourceFormat;
  readonly value: unknown;
  /** Line and column (1-based) of the node at `pointer`, or of its key when `key` is set. */
  locate(pointer: string, key?: boolean): { line: number; column: number } | undefined;
}

/** Where a pointer lands, as a diagnostic's location fields. */
export function at(file: SourceFile, pointer: string, key = false): { file: string; pointer: string; line?: number; column?: number } {
  const pos = file.locate(pointer, key);
  return pos ? { file: file.path, pointer, ...pos } : { file: file.path, pointer };
}

/** Offsets to 1-based line/column, with the line index built on first use. */
class LineIndex {
  #starts: number[] | undefined;
  constructor(private readonly text: string) {}
  position(offset: number): { line: number; column: number } {
    const starts = (this.#starts ??= this.#build());
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo]! + 1 };
  }
  #build(): number[] {
    const starts = [0];
    for (let i = this.text.indexOf('\n'); i >= 0; i = this.text.indexOf('\n', i + 1)) starts.push(i + 1);
    return starts;
  }
}

/** Pick JSON or YAML by extension, then by the first significant character. */
function sniffFormat(path: string, text: string): SourceFormat {
  const lower = path.toLowerCase();
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'yaml';
  const first = text.trimStart()[0];
  return first === '{' || first === '[' ? 'json' : 'yaml';
}

/**
 * Parse text into a {@link SourceFile}. Never throws: every problem becomes a
 * diagnostic, and `file` is undefined when nothing usable was read.
 */
export function parseSource(
  path: string,
  rawText: string,
  limits: ParseLimits = DEFAULT_LIMITS,
  format: SourceFormat = sniffFormat(path, rawText),
): { file?: SourceFile; diagnostics: Diagnostic[] } {
  const text = rawText.charCodeAt(0) === 0xfeff ? rawText.slice(1) : rawText;
  const lines = new LineIndex(text);
  if (text.trim() === '') {
    return {
      diagnostics: [
        diagnostic('FILE_EMPTY', 'The file is empty.', { file: path, line: 1, column: 1, hint: 'Add a manifest, or remove the file.' }),
      ],
    };
  }
  const binary = (nul: number) => ({
    diagnostics: [
      diagnostic('PARSE_ERROR', 'This is a binary file (it contains NUL bytes), not a manifest.', {
        file: path,
        ...lines.position(nul),
        hint: 'Point toolcap at JSON or YAML text files.',
      }),
    ],
  });
  // JSON.parse refuses a raw NUL anywhere, so JSON text that parses has none: it is looked for
  // only when parsing fails (a scan of the whole text saved on every good file)
  if (format === 'yaml') {
    const nul = text.indexOf('\u0000');
    if (nul >= 0) return binary(nul);
  }
  const result = format === 'json' ? parseJson(path, text, lines) : parseYaml(path, text, lines, limits);
  if (!result.file) {
    const nul = format === 'json' ? text.indexOf('\u0000') : -1;
    return nul >= 0 ? binary(nul) : result;
  }
  // JSON nesting is measured on the parsed value (what later stages walk; JSON.parse itself does not
  // recurse), and the text scanned only to place the finding. YAML was bounded before parsing.
  const parsed = format === 'json' ? inspectParsed(result.file.value, limits.maxDepth) : undefined;
  if (parsed?.deeper) {
    const deepAt = offsetAtDepth(text, limits.maxDepth + 1);
    if (deepAt >= 0) return { diagnostics: [nestingTooDeep(path, lines.position(deepAt), limits)] };
  }
  // JSON: the walk above saw every key (an escaped "\u005f_proto__" too); YAML: only a text that names
  // __proto__ can hold such a key.
  const mayHaveProto = parsed ? parsed.protoKey : text.includes('__proto__');
  const diagnostics = mayHaveProto ? [...result.diagnostics, ...removeProtoKeys(result.file)] : result.diagnostics;
  return { file: result.file, diagnostics };
}

function nestingTooDeep(path: string, pos: { line: number; column: number }, limits: ParseLimits): Diagnostic {
  return diagnostic('NESTING_TOO_DEEP', `Nesting is deeper than the limit of ${limits.maxDepth} levels.`, {
    file: path,
    ...pos,
    hint: 'Flatten the document; manifests never need this depth.',
  });
}

function parseJson(path: string, text: string, lines: LineIndex): { file?: SourceFile; diagnostics: Diagnostic[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSON.parse says little; jsonc-parser says where and what.
    const errors: ParseError[] = [];
    parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    const first = errors[0];
    const pos = lines.position(first ? first.offset : text.length);
    const what = first ? printParseErrorCode(first.error) : 'InvalidJSON';
    return {
      diagnostics: [
        diagnostic('PARSE_ERROR', `Invalid JSON: ${what}.`, {
          file: path,
          ...pos,
          hint: 'Fix the JSON syntax at this position (a truncated file ends early; check brackets, commas and quotes).',
        }),
      ],
    };
  }
  let locator: ReturnType<typeof jsonLocator> | undefined;
  const locate = (pointer: string, key = false) => {
    locator ??= jsonLocator(text);
    const offset = locator(splitPointer(pointer), key);
    return offset === undefined ? undefined : lines.position(offset);
  };
  return { file: { path, text, format: 'json', value, locate }, diagnostics: [] };
}

/**
 * Can a quote at `i` open a quoted scalar? Only where a scalar may start:
 * first on its line (after indentation and "- "), or after `[`, `{`, `,`, `:`
 * or `?` and spaces. A quote after a space inside a plain scalar (`a 'b`) is
 * just a character.
 */
function startsScalar(text: string, i: number): boolean {
  let j = i - 1;
  while (j >= 0 && (text[j] === ' ' || text[j] === '\t')) j--;
  if (j < 0 || text[j] === '\n') return true;
  const before = text[j];
  if (before === '-' && (j === 0 || text[j - 1] === ' ' || text[j - 1] === '\n' || text[j - 1] === '-')) return j < i - 1;
  return (before === '[' || before === '{' || before === ',' || before === ':' || before === '?') && (before !== ':' || j < i - 1);
}

/**
 * Deepest nesting in YAML text, estimated from flow brackets and block
 * indentation, so that pathological input is refused before the YAML
 * composer (which recurses) sees it.
 */
function yamlNestingDepth(text: string): { depth: number; offset: number } {
  let flow = 0;
  let max = 0;
  let maxAt = 0;
  const indents: number[] = [];
  let lineStart = 0;
  let quote = '';
  for (let i = 0; i <= text.length; i++) {
    const c = text[i];
    if (i === lineStart && !quote) {
      // block depth: indentation levels plus inline sequence dashes
      let j = i;
      while (text[j] === ' ') j++;
      const indent = j - i;
      let dashes = 0;
      while (text[j] === '-' && (text[j + 1] === ' ' || text[j + 1] === '\n')) {
        dashes++;
        j += 2;
        while (text[j] === ' ') j++;
      }
      if (text[j] !== '\n' && text[j] !== '#' && j < text.length && flow === 0) {
        while (indents.length > 0 && indents[indents.length - 1]! >= indent) indents.pop();
        indents.push(indent);
        const depth = indents.length + dashes;
        if (depth > max) [max, maxAt] = [depth, i];
      }
    }
    if (c === '\n' || c === undefined) {
      lineStart = i + 1;
      continue;
    }
    if (quote) {
      if (c === quote) quote = '';
      else if (c === '\\' && quote === '"') i++;
      continue;
    }
    if (c === '#' && (i === 0 || text[i - 1] === ' ' || text[i - 1] === '\n')) {
      const nl = text.indexOf('\n', i);
      i = (nl < 0 ? text.length : nl) - 1;
      continue;
    }
    if ((c === '"' || c === "'") && startsScalar(text, i)) quote = c;
    else if (c === '[' || c === '{') {
      flow++;
      const depth = indents.length + flow;
      if (depth > max) [max, maxAt] = [depth, i];
    } else if ((c === ']' || c === '}') && flow > 0) flow--;
  }
  return { depth: max, offset: maxAt };
}

function parseYaml(
  path: string,
  text: string,
  lines: LineIndex,
  limits: ParseLimits,
): { file?: SourceFile; diagnostics: Diagnostic[] } {
  const nesting = yamlNestingDepth(text);
  if (nesting.depth > limits.maxDepth) return { diagnostics: [nestingTooDeep(path, lines.position(nesting.offset), limits)] };
  let doc: Document.Parsed;
  try {
    // keys are checked for uniqueness here, in linear time (yaml's own check is quadratic per mapping)
    doc = parseDocument(text, { prettyErrors: false, uniqueKeys: false, strict: true });
  } catch {
    return { diagnostics: [diagnostic('PARSE_ERROR', 'The YAML parser could not read this file.', { file: path, line: 1, column: 1 })] };
  }
  const keys = yamlProblems(doc);
  const problems = [
    ...doc.errors.map((error) => ({ offset: error.pos[0], duplicate: error.code === 'DUPLICATE_KEY', message: firstLine(error.message), hint: undefined })),
    ...keys.duplicates.map((offset) => ({ offset, duplicate: true, message: 'Map keys must be unique', hint: undefined })),
    // yaml would turn such a key into a string like "[ a, b ]" (and print a process warning): refuse it instead
    ...keys.collections.map((offset) => ({ offset, duplicate: false, message: 'a mapping key is a list or a mapping', hint: 'Use a plain string as the key; manifest keys are names.' })),
    ...keys.cycles.map((offset) => ({ offset, duplicate: false, message: 'this alias is inside the node it refers to, so the data would contain itself', hint: 'Write the value out, or refer to a node that does not contain the alias.' })),
  ].sort((a, b) => a.offset - b.offset);
  const diagnostics: Diagnostic[] = [];
  for (const { offset, duplicate, message, hint } of problems) {
    diagnostics.push(
      diagnostic(duplicate ? 'DUPLICATE_KEY' : 'PARSE_ERROR', `Invalid YAML: ${message}`, {
        file: path,
        ...lines.position(offset),
        hint: hint ?? (duplicate ? 'Each key may appear once in a mapping; remove or rename one.' : 'Fix the YAML syntax at this position.'),
      }),
    );
  }
  if (diagnostics.length > 0) return { diagnostics };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: limits.maxAliasCount });
  } catch (error) {
    // yaml signals alias expansion beyond maxAliasCount with a ReferenceError.
    const bomb = error instanceof ReferenceError;
    return {
      diagnostics: [
        diagnostic(bomb ? 'YAML_ALIAS_LIMIT' : 'PARSE_ERROR', bomb
          ? `YAML aliases expand past the limit of ${limits.maxAliasCount}; this looks like an alias bomb.`
          : 'The YAML document could not be turned into data.', {
          file: path,
          line: 1,
          column: 1,
          hint: bomb ? 'Write the repeated parts out, or use fewer anchors and aliases.' : 'Check anchors, tags and aliases.',
        }),
      ],
    };
  }
  // The syntax tree costs many times the text: drop it now, parse again if a position is ever asked for.
  let tree: Document.Parsed | undefined;
  let targets: ReturnType<typeof aliasTargets> | undefined;
  const locate = (pointer: string, key = false) => {
    tree ??= parseDocument(text, { prettyErrors: false, uniqueKeys: false });
    const doc = tree;
    // what every alias names, found in one walk: values and keys alike (an alias key is the key it names)
    targets ??= aliasTargets(doc);
    // Walk the tree by hand: aliases are followed to their anchors (getIn does not). A document of
    // comments or directives only has no node: it is located at the document itself.
    let node: unknown = doc.contents ?? doc;
    let keyNode: unknown;
    for (const token of splitPointer(pointer)) {
      if (isAlias(node)) node = targets.get(node);
      if (isMap(node)) {
        const pair = pairByKey(node, token, targets);
        if (!pair) return undefined;
        keyNode = pair.key;
        node = pair.value;
      } else if (isSeq(node)) {
        keyNode = undefined;
        node = node.items[Number(token)];
      } else return undefined;
    }
    const target = key && keyNode !== undefined ? keyNode : node;
    const range = target !== null && typeof target === 'object' && 'range' in target ? (target as YamlNode).range : undefined;
    return range ? lines.position(range[0]) : undefined;
  };
  return { file: { path, text, format: 'yaml', value, locate }, diagnostics };
}

function firstLine(message: string): string {
  const line = message.split('\n')[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, '');
}

/** Remove `__proto__` keys, so nothing later can pollute a prototype through them. */
function removeProtoKeys(file: SourceFile): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  // Nesting is already bounded, so this recursion is too.
  const walk = (node: unknown, path: Array<string | number>): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, [...path, i]));
      return;
    }
    const obj = node as Record<string, unknown>;
    if (Object.prototype.hasOwnProperty.call(obj, '__proto__')) {
      diagnostics.push(
        diagnostic('UNSAFE_KEY', 'The key "__proto__" is ignored: it could change object prototypes.', {
          ...at(file, joinPointer('', ...path, '__proto__'), true),
          hint: 'Remove the key; no manifest field has this name.',
        }),
      );
      delete obj['__proto__'];
    }
    for (const key of Object.keys(obj)) walk(obj[key], [...path, key]);
  };
  walk(file.value, []);
  return diagnostics;
}
