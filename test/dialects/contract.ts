/**
 * The contract every dialect passes: detection, a clean import, exact round
 * trip (import then export gives back the document, modulo key order), stable
 * re-import, canonical output that the published schema accepts, and field
 * maps that point every canonical value back at the source field it came from.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectDialect } from '../../src/dialects/lookup.js';
import type { Dialect, EntryKind, ImportedDocument, Located } from '../../src/dialects/types.js';
import { isDerived } from '../../src/model/derive.js';
import { splitPointer } from '../../src/model/diagnostics.js';
import { createImportContext } from '../../src/source/context.js';
import { parseSource } from '../../src/source/source.js';
import { canonicalValidator } from '../../src/model/validator.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';

/** Parse and import one file with the given dialect. */
export function importFile(dialect: Dialect, path: string): { value: unknown; imported: ImportedDocument; diagnostics: Diagnostic[] } {
  const parsed = parseSource(path, readFileSync(path, 'utf8'));
  if (!parsed.file) throw new Error(`fixture ${path} does not parse: ${JSON.stringify(parsed.diagnostics)}`);
  const original = structuredClone(parsed.file.value);
  const context = createImportContext(parsed.file);
  const imported = dialect.import(context);
  return { value: original, imported, diagnostics: [...parsed.diagnostics, ...context.diagnostics] };
}

function fragmentOf(doc: ImportedDocument) {
  return {
    ...(doc.bundle ? { bundle: doc.bundle } : {}),
    tools: doc.tools.map((t) => t.value),
    skills: doc.skills.map((t) => t.value),
    agents: doc.agents.map((t) => t.value),
    jobs: doc.jobs.map((t) => t.value),
  };
}

const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

/** The value at a canonical dot path, or at a JSON pointer. */
const valueAt = (root: unknown, keys: readonly string[]): unknown =>
  keys.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' && Object.hasOwn(v, k) ? (v as Record<string, unknown>)[k] : undefined), root);

/** Entries of each kind with the field map the dialect has for it. */
function entriesByKind(doc: ImportedDocument): Array<[EntryKind, ReadonlyArray<Located<object>>]> {
  return [
    ['tool', doc.tools],
    ['skill', doc.skills],
    ['agent', doc.agents],
    ['job', doc.jobs],
  ];
}

export interface ContractOptions {
  /** Fixture files (absolute or cwd-relative paths). */
  fixtures: readonly string[];
  /** Diagnostic codes a fixture may produce without failing the clean-import check. */
  allowedCodes?: readonly string[];
  /**
   * Canonical paths the format may also write in a second place its field map
   * cannot name (a map holds one suffix a path): findings on them may fall
   * back to the entry's line.
   */
  secondSources?: readonly string[];
}

/** Run the dialect contract over fixtures. */
export function runDialectContract(dialect: Dialect, options: ContractOptions): void {
  describe(`dialect contract: ${dialect.id}`, () => {
    it('has fixtures', () => {
      expect(options.fixtures.length).toBeGreaterThan(0);
    });
    describe.each(options.fixtures.map((f) => [f]))('%s', (fixture) => {
      it('is detected as this dialect', () => {
        const parsed = parseSource(fixture, readFileSync(fixture, 'utf8'));
        expect(detectDialect(parsed.file?.value, { path: fixture })?.dialect.id).toBe(dialect.id);
      });

      it('imports without errors', () => {
        const { imported, diagnostics } = importFile(dialect, fixture);
        const unexpected = diagnostics.filter((d) => d.severity === 'error' || (d.severity === 'warning' && !options.allowedCodes?.includes(d.code)));
        expect(unexpected).toEqual([]);
        const entries = imported.tools.length + imported.skills.length + imported.agents.length + imported.jobs.length;
        expect(entries).toBeGreaterThan(0);
      });

      it('round-trips exactly', () => {
        const { value, imported } = importFile(dialect, fixture);
        const files = dialect.export(fragmentOf(imported));
        const normalized = fixture.replace(/\\/g, '/');
        const match = files.length === 1 ? files[0] : files.find((f) => normalized.endsWith(f.path));
        expect(match, `exported ${files.map((f) => f.path).join(', ')}`).toBeDefined();
        expect(plain(match!.value)).toStrictEqual(plain(value));
      });

      it('gives canonical entries the published schema accepts', () => {
        const { imported } = importFile(dialect, fixture);
        const validate = canonicalValidator();
        const ok = validate({ toolcap: 1, ...plain(fragmentOf(imported)) as object });
        expect(validate.errors ?? []).toEqual([]);
        expect(ok).toBe(true);
      });

      // A derived value may come from a default (an absent MCP hint): it has no source field, and is located at its entry.
      it('maps every declared canonical value of every kind of entry back to a source field', () => {
        const { value, imported } = importFile(dialect, fixture);
        for (const [kind, entries] of entriesByKind(imported)) {
          const map = dialect.fieldMaps[kind];
          expect(entries.length === 0 || map !== undefined, `${kind} entries but no ${kind} field map`).toBe(true);
          for (const { value: entry, pointer } of entries) {
            for (const [path, suffix] of Object.entries(map ?? {})) {
              if (valueAt(entry, path.split('.')) === undefined || isDerived(entry, path) || options.secondSources?.includes(path)) continue;
              expect(valueAt(value, splitPointer(pointer + suffix)), `${kind} at ${pointer}: ${path} -> ${suffix}`).toBeDefined();
            }
          }
        }
      });
    });
  });
}
