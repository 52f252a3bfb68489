/**
 * `$ref` resolution within an OpenAPI document and across the files it names.
 *
 * A place in the document set is a {@link Place}: a file key (`''` for the
 * document being imported, otherwise a normalised path relative to its
 * folder), a JSON pointer in that file, and the pointer in the imported
 * document where diagnostics go. The import context can only report on the
 * imported file, so problems found inside a referenced file are reported at
 * the `$ref` that led there, naming the file and pointer in the message.
 * Each referenced file is read once (`readRelative`) and cached.
 * @module
 */
import { posix } from 'node:path';
import { joinPointer, splitPointer, type DiagnosticCode, type Severity } from '../../model/diagnostics.js';
import { isPlainObject } from '../../source/reader.js';
import type { ImportContext } from '../types.js';

/**
 * Where a value stands: file key, pointer inside that file, and the pointer
 * in the imported document where findings about it are reported. Pointers
 * are built only when asked for: most places are never reported.
 */
export class Place {
  #pointer: string | undefined;

  private constructor(
    readonly file: string,
    readonly parent: Place | undefined,
    readonly key: string | number | undefined,
    pointer: string | undefined,
    readonly otherAnchor: string | undefined,
  ) {
    this.#pointer = pointer;
  }

  /** A place given by its pointer; `anchor` is needed for places outside the imported document. */
  static at(file: string, pointer: string, anchor?: string): Place {
    return new Place(file, undefined, undefined, pointer, file === '' ? undefined : (anchor ?? ''));
  }

  /** The root of the imported document. */
  static readonly ROOT = Place.at('', '');

  /** The place of a property or an array item of this one. */
  child(key: string | number): Place {
    return new Place(this.file, this, key, undefined, this.otherAnchor);
  }

  get pointer(): string {
    this.#pointer ??= joinPointer(this.parent!.pointer, this.key!);
    return this.#pointer;
  }

  /** Where findings go: this place itself in the imported document, else the reference that led here. */
  get anchor(): string {
    return this.otherAnchor ?? this.pointer;
  }
}

/** A value found by following a reference, with its place. */
export interface Resolved {
  readonly value: unknown;
  readonly place: Place;
}

/** The place of a child of `place` (`key` is a property name or an array index). */
export function child(place: Place, key: string | number): Place {
  return place.child(key);
}

/** The `$ref` string of a reference object, or undefined when `value` is not one. */
export function refOf(value: unknown): string | undefined {
  if (!isPlainObject(value)) return undefined;
  const ref = value['$ref'];
  return typeof ref === 'string' ? ref : undefined;
}

/** Reads `$ref`s against the imported document and the files it refers to. */
export class RefResolver {
  readonly #files = new Map<string, unknown>();
  /** Successful resolutions by file and reference text (failures are reported at every use). */
  readonly #resolved = new Map<string, Map<string, Resolved>>();
  readonly #mainName: string;

  constructor(readonly context: ImportContext) {
    this.#files.set('', context.file.value);
    this.#mainName = posix.basename(context.file.path.replace(/\\/g, '/'));
  }

  /** Report a finding about a value at `place`, naming the other file when it is not the imported one. */
  report(place: Place, code: DiagnosticCode, message: string, hint?: string, severity?: Severity): void {
    const where = place.file === '' ? message : `${message} (in ${place.file} at "${place.pointer || '/'}")`;
    this.context.report(code, where, place.anchor, { ...(hint === undefined ? {} : { hint }), ...(severity === undefined ? {} : { severity }) });
  }

  /**
   * Follow one `$ref` written at `at` (the place of the reference object).
   * Reports REF_NOT_FOUND at the reference and returns undefined when the
   * file or the pointer does not resolve.
   */
  resolve(ref: string, at: Place): Resolved | undefined {
    let inFile = this.#resolved.get(at.file);
    if (inFile === undefined) this.#resolved.set(at.file, (inFile = new Map()));
    const known = inFile.get(ref);
    if (known !== undefined) return known;
    const found = this.#resolve(ref, at);
    if (found !== undefined) inFile.set(ref, found);
    return found;
  }

  #resolve(ref: string, at: Place): Resolved | undefined {
    const hash = ref.indexOf('#');
    const path = hash < 0 ? ref : ref.slice(0, hash);
    const fragment = hash < 0 ? '' : ref.slice(hash + 1);
    const refPlace = child(at, '$ref');
    if (/^[a-z][a-z0-9+.-]*:/i.test(path)) {
      this.report(refPlace, 'REF_NOT_FOUND', `"${ref}" is a remote reference; toolcap does not fetch URLs.`, 'Download the referenced file next to the document and refer to it by a relative path.');
      return undefined;
    }
    const file = path === '' ? at.file : this.#fileKey(at.file, path);
    const root = this.#read(file, refPlace);
    if (root === undefined) return undefined;
    const pointer = decodeFragment(fragment);
    if (pointer === undefined) {
      this.report(refPlace, 'REF_NOT_FOUND', `"${ref}" is not a JSON pointer reference; only "#/..." fragments are followed.`, 'Refer to the target by its JSON pointer, e.g. "#/components/schemas/Pet".');
      return undefined;
    }
    const value = walk(root, pointer);
    if (value === undefined) {
      this.report(refPlace, 'REF_NOT_FOUND', `"${ref}" points at nothing.`, 'Check the pointer against the target document; it is case-sensitive.');
      return undefined;
    }
    return { value, place: file === '' ? Place.at(file, pointer) : Place.at(file, pointer, refPlace.anchor) };
  }

  /**
   * Follow references until a value that is not a reference (parameters,
   * responses and request bodies may be chains of references). Stops with a
   * finding on a chain that loops.
   */
  deref(value: unknown, place: Place): Resolved | undefined {
    let current: Resolved = { value, place };
    const seen = new Set<unknown>();
    for (let ref = refOf(value); ref !== undefined; ref = refOf(current.value)) {
      const key = current.value;
      if (seen.has(key)) {
        this.report(child(current.place, '$ref'), 'INVALID_VALUE', `"${ref}" refers back to itself through a chain of references.`, 'Point the reference at an object that is not itself a reference to this one.');
        return undefined;
      }
      seen.add(key);
      const next = this.resolve(ref, current.place);
      if (next === undefined) return undefined;
      current = next;
    }
    return current;
  }

  /** The file key of `path`, written in the file `from`. The imported document's own name maps back to `''`. */
  #fileKey(from: string, path: string): string {
    const joined = posix.normalize(posix.join(posix.dirname(from === '' ? this.#mainName : from), path));
    return joined === this.#mainName ? '' : joined;
  }

  #read(file: string, refPlace: Place): unknown {
    if (this.#files.has(file)) {
      const known = this.#files.get(file);
      if (known === undefined) this.report(refPlace, 'REF_NOT_FOUND', `"${file}" could not be read (reported where it was first referred to).`, 'Fix the path; it is relative to the file that holds the reference.');
      return known;
    }
    // Paths are relative to the imported document, however deep the chain of files.
    // readRelative reports a file it cannot read (REF_NOT_FOUND at the anchor).
    const value = this.context.readRelative(file, refPlace.anchor);
    this.#files.set(file, value);
    return value;
  }
}

/** A URI fragment as a JSON pointer (percent-decoded), or undefined when it is not a pointer. */
function decodeFragment(fragment: string): string | undefined {
  if (fragment === '') return '';
  if (!fragment.startsWith('/')) return undefined;
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}

/** The value at `pointer` inside `root`, or undefined. Own properties only. */
export function walk(root: unknown, pointer: string): unknown {
  let node = root;
  for (const token of splitPointer(pointer)) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (isPlainObject(node) && Object.prototype.hasOwnProperty.call(node, token)) {
      node = node[token];
    } else {
      return undefined;
    }
  }
  return node;
}
