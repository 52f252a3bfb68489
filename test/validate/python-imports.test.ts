import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../src/registry/catalog.js';
import { createPythonImportChecker } from '../../src/runtime/providers/python-check.js';
import type { PythonImportChecker } from '../../src/validate/python-imports.js';

const MANIFEST = fileURLToPath(new URL('../fixtures/python/proj/config/tool_manifest.json', import.meta.url));
/** Diagnostics name files as they were given, relative to the working folder. */
const FILE = relative(process.cwd(), MANIFEST);
const EXAMPLE = fileURLToPath(new URL('../../examples/pylot/config/', import.meta.url));

describe('Python modules must be importable (load time)', () => {
  const checker = createPythonImportChecker();

  it('reports each module Python cannot import, located at the manifest line naming it', () => {
    const { diagnostics } = buildCatalog([MANIFEST], { pythonImports: checker });
    const found = diagnostics.filter((d) => d.code === 'MODULE_NOT_IMPORTABLE').map((d) => ({ file: d.file, line: d.line, message: d.message }));
    expect(found).toEqual([
      { file: FILE, line: 7, message: expect.stringMatching(/"missing_module".*ptools\.nope/) },
      { file: FILE, line: 8, message: expect.stringMatching(/"broken".*ImportError: broken on purpose/) },
      { file: FILE, line: 9, message: expect.stringMatching(/"no_class".*no subclass of Tool/) },
      { file: FILE, line: 10, message: expect.stringMatching(/"wrong_class".*has no class 'Nope'/) },
      { file: FILE, line: 11, message: expect.stringMatching(/"stdlib".*standard library/) },
    ]);
    expect(diagnostics.filter((d) => d.code === 'MODULE_NOT_IMPORTABLE').every((d) => d.severity === 'error' && d.hint !== undefined && d.column !== undefined)).toBe(true);
  });

  it('a missing class is reported at class_name', () => {
    const { diagnostics } = buildCatalog([MANIFEST], { pythonImports: checker });
    const wrong = diagnostics.find((d) => d.code === 'MODULE_NOT_IMPORTABLE' && d.message.includes('wrong_class'));
    expect(wrong?.pointer).toBe('/tools/5/class_name');
    const missing = diagnostics.find((d) => d.code === 'MODULE_NOT_IMPORTABLE' && d.message.includes('missing_module'));
    expect(missing?.pointer).toBe('/tools/2/module');
  });

  it('asks one Python process per project root, however many tools it has', () => {
    const roots: string[] = [];
    const counting: PythonImportChecker = (root, items, trusted) => {
      roots.push(root);
      return checker(root, items, trusted);
    };
    const { diagnostics } = buildCatalog([MANIFEST, EXAMPLE], { pythonImports: counting });
    expect(roots.length).toBe(2);
    expect(new Set(roots).size).toBe(2);
    expect(diagnostics.filter((d) => d.code === 'MODULE_NOT_IMPORTABLE')).toHaveLength(5);
  });

  it('the example project imports cleanly', () => {
    const { diagnostics } = buildCatalog([EXAMPLE], { pythonImports: checker });
    expect(diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
  });

  it('without Python: one PYTHON_UNAVAILABLE warning per project root, no crash', () => {
    const none = createPythonImportChecker({ env: { PATH: '/nonexistent' } });
    const { diagnostics } = buildCatalog([MANIFEST], { pythonImports: none });
    const warned = diagnostics.filter((d) => d.code === 'PYTHON_UNAVAILABLE');
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ severity: 'warning', file: FILE, line: 5 });
    expect(warned[0]?.message).toContain('python3');
    expect(diagnostics.some((d) => d.code === 'MODULE_NOT_IMPORTABLE')).toBe(false);
  });

  it('a module whose import hangs is reported when the check times out', () => {
    const slow: PythonImportChecker = (root, items, trusted) => createPythonImportChecker({ timeoutMs: 1500 })(root, [{ key: 'h', module: 'ptools.hang_on_import' }, ...items], trusted);
    const answer = slow(fileURLToPath(new URL('../fixtures/python/slow/', import.meta.url)), [], []);
    expect('outcomes' in answer && answer.outcomes.get('h')).toMatchObject({ ok: false, message: expect.stringContaining('did not finish within 1500 ms') });
  }, 15_000);

  it('manifests read without their project\'s code: a warning per tool, not an error (the catalog still loads)', () => {
    const { diagnostics } = buildCatalog(['examples/manifests/pylot'], { pythonImports: checker });
    const found = diagnostics.filter((d) => d.code === 'MODULE_NOT_IMPORTABLE');
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((d) => d.severity === 'warning' && /no package or module 'src'/.test(d.message))).toBe(true);
  });

  it('is not asked without a checker (reading manifests runs no Python)', () => {
    const { diagnostics } = buildCatalog([MANIFEST]);
    expect(diagnostics.some((d) => d.code === 'MODULE_NOT_IMPORTABLE' || d.code === 'PYTHON_UNAVAILABLE')).toBe(false);
  });
});
