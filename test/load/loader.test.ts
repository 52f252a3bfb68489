import { constants as bufferConstants } from 'node:buffer';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLayers } from '../../src/load/loader.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'toolcap-loader-'));

describe('loadLayers', () => {
  it('detects each file\'s dialect in a folder walk, in sorted order', () => {
    const { layers, diagnostics } = loadLayers(['examples/manifests']);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const dialects = new Set(layers[0]?.documents.map((d) => d.dialect.id));
    expect([...dialects].sort()).toEqual(['atlas', 'capability', 'pylot', 'shinkai', 'toolcap', 'xena']);
    const files = layers[0]?.documents.map((d) => d.file.path) ?? [];
    expect(files).toEqual([...files].sort());
  });

  it('does not call a file a manifest refers to a stray, but notes a real stray', () => {
    const dir = tmp();
    mkdirSync(join(dir, 'schemas'));
    writeFileSync(join(dir, 'schemas', 'a.json'), '{"type": "object"}');
    writeFileSync(join(dir, 'schemas', 'stray.json'), '{"type": "object"}');
    writeFileSync(join(dir, 'a.yaml'), 'name: a.tool\nsummary: A\ninputSchemaRef: ./schemas/a.json\ncapabilities:\n  mode: read\n');
    const { diagnostics, layers } = loadLayers([dir]);
    expect(layers[0]?.documents.map((d) => d.dialect.id)).toEqual(['capability']);
    const notes = diagnostics.filter((d) => d.code === 'NOT_A_MANIFEST').map((d) => d.file ?? '');
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/stray\.json$/);
  });

  it('does not follow symbolic links (no loops)', () => {
    const dir = tmp();
    symlinkSync(dir, join(dir, 'loop'));
    const { diagnostics } = loadLayers([dir]);
    expect(diagnostics).toMatchObject([{ code: 'NOT_A_MANIFEST', severity: 'info' }]);
  });

  it('keeps layers in the order given and reports a missing path as unreadable', () => {
    const result = loadLayers(['test/fixtures/core/overlay', 'nope/nothing', 'test/fixtures/core/base']);
    expect(result.layers.map((l) => l.source)).toEqual(['test/fixtures/core/overlay', 'nope/nothing', 'test/fixtures/core/base']);
    expect(result.unreadable).toBe(true);
    expect(result.diagnostics).toMatchObject([{ code: 'PATH_NOT_FOUND', file: 'nope/nothing' }]);
  });

  it('reads every file as the forced dialect', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'x.json'), '{"toolcap": 1, "tools": [{"name": "a"}]}');
    const { diagnostics } = loadLayers([join(dir, 'x.json')], { dialect: 'pylot' });
    expect(diagnostics.some((d) => d.severity === 'error')).toBe(true);
  });

  it('refuses a file over the size limit without reading it', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'big.json'), `[${'1,'.repeat(600)}1]`);
    const { diagnostics } = loadLayers([join(dir, 'big.json')], { limits: { maxBytes: 1000 } });
    expect(diagnostics).toMatchObject([{ code: 'FILE_TOO_LARGE' }]);
  });
});

describe('a file larger than one string', () => {
  it('is FILE_TOO_LARGE even with limits.maxBytes raised, not "cannot read"', () => {
    const dir = tmp();
    const file = join(dir, 'huge.json');
    writeFileSync(file, '');
    // sparse: the size is past what one string holds, without writing the bytes
    truncateSync(file, bufferConstants.MAX_STRING_LENGTH + 1);
    try {
      const { diagnostics } = loadLayers([file], { limits: { maxBytes: Number.MAX_SAFE_INTEGER } });
      expect(diagnostics).toMatchObject([{ code: 'FILE_TOO_LARGE', severity: 'error', message: expect.stringMatching(/more than one string can hold/) }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
