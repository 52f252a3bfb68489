import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../src/registry/catalog.js';
import type { Tool } from '../../src/model/schema.js';
import { mcpToolOf } from '../../src/mcp/projection.js';

type Json = Record<string, unknown>;

/** A discovered layer (what the server reports) and a reviewed layer, merged. */
function merged(discovered: Json, reviewed: Json | undefined): Tool {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-floors-'));
  const a = join(dir, 'discovered.json');
  writeFileSync(a, JSON.stringify({ toolcap: 1, tools: [{ name: 'mcp.s.t', version: '1.0.0', description: 'A tool', ...discovered }] }));
  const layers: Array<string | { path: string; discovered: boolean }> = [{ path: a, discovered: true }];
  if (reviewed) {
    const b = join(dir, 'reviewed.json');
    writeFileSync(b, JSON.stringify({ toolcap: 1, tools: [{ name: 'mcp.s.t', ...reviewed }] }));
    layers.push(b);
  }
  const { catalog } = buildCatalog(layers);
  const tool = catalog.tools[0]?.value;
  if (!tool) throw new Error('no tool');
  return tool;
}

const reviewedRead = { effects: { mode: 'read', sideEffects: 'none', reversible: 'full', risk: 'low' }, execution: { idempotent: true, retryClass: 'safe' } };

describe('server hints tighten a reviewed manifest, never loosen it', () => {
  it.each([
    ['readOnlyHint: false', { readOnly: false }, { mode: 'mixed', sideEffects: 'none', reversible: 'full' }, { idempotent: true, retryClass: 'safe' }],
    ['destructiveHint: true', { readOnly: false, destructive: true }, { mode: 'write', sideEffects: 'none', reversible: 'partial' }, { idempotent: true, retryClass: 'safe' }],
    ['idempotentHint: false', { readOnly: true, idempotent: false }, { mode: 'read', sideEffects: 'none', reversible: 'full' }, { idempotent: false, retryClass: 'guarded' }],
    ['openWorldHint: true', { readOnly: true, openWorld: true }, { mode: 'read', sideEffects: 'read_external_service', reversible: 'full' }, { idempotent: true, retryClass: 'safe' }],
    ['no hints', undefined, { mode: 'read', sideEffects: 'none', reversible: 'full' }, { idempotent: true, retryClass: 'safe' }],
  ])('%s', (_name, hints, effects, execution) => {
    const tool = merged({ ...(hints ? { hints } : {}), effects: { mode: 'write', sideEffects: 'network' } }, reviewedRead);
    expect(tool.effects).toMatchObject(effects);
    expect(tool.execution).toMatchObject(execution);
  });

  it('hints never loosen: a reviewed write stays a write under readOnlyHint: true', () => {
    const tool = merged({ hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false } }, { effects: { mode: 'write', sideEffects: 'database', reversible: 'none', risk: 'high' }, execution: { retryClass: 'never' } });
    expect(tool.effects).toMatchObject({ mode: 'write', sideEffects: 'database', reversible: 'none', risk: 'high' });
    expect(tool.execution?.retryClass).toBe('never');
  });

  it('without a reviewed manifest, the discovered tool stands as discovered', () => {
    const tool = merged({ hints: { readOnly: false }, effects: { mode: 'write', sideEffects: 'network' } }, undefined);
    expect(tool.effects).toMatchObject({ mode: 'write', sideEffects: 'network' });
  });

  it('a layer that is not marked discovered sets no floor', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolcap-floors-'));
    const a = join(dir, 'a.json');
    const b = join(dir, 'b.json');
    writeFileSync(a, JSON.stringify({ toolcap: 1, tools: [{ name: 'x.t', version: '1.0.0', description: 'T', hints: { readOnly: false } }] }));
    writeFileSync(b, JSON.stringify({ toolcap: 1, tools: [{ name: 'x.t', ...reviewedRead }] }));
    expect(buildCatalog([a, b]).catalog.tools[0]?.value.effects?.mode).toBe('read');
  });
});

describe('server hints a reviewed manifest contradicts are not listed on', () => {
  // the gateway's tools/list and `convert --to mcp` write a stated hint as stated: a server's readOnlyHint over a
  // reviewed write told every MCP client that the reviewed, irreversible database write was read-only and harmless
  it('a reviewed irreversible write is never listed read-only, non-destructive, idempotent or closed-world on the server\'s word', () => {
    const tool = merged(
      { hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false } },
      { effects: { mode: 'write', sideEffects: 'write', reversible: 'none', risk: 'high' }, execution: { idempotent: false, retryClass: 'never' } },
    );
    const annotations = mcpToolOf(tool).annotations ?? {};
    expect(annotations.readOnlyHint).not.toBe(true);
    expect(annotations.destructiveHint).not.toBe(false);
    expect(annotations.idempotentHint).not.toBe(true);
    expect(annotations.openWorldHint).not.toBe(false);
    expect(annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
  });

  it('hints the reviewed manifest agrees with, or leaves open, stay', () => {
    const tool = merged({ hints: { readOnly: true, openWorld: false } }, { effects: { mode: 'read', sideEffects: 'none', reversible: 'full', risk: 'low' } });
    expect(mcpToolOf(tool).annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    // without a reviewed layer the server's word is all there is, and toolcap's own reading follows it
    const alone = merged({ hints: { readOnly: true } }, undefined);
    expect(mcpToolOf(alone).annotations).toMatchObject({ readOnlyHint: true });
  });
});
