/**
 * Approvals bound to the code (issue 12): the hash an approval is bound to
 * covers the manifest and every provider's codeIdentity(), in priority
 * order; a change between request and approve voids the approval and
 * nothing runs. A fake provider type whose identity the test changes, and
 * the real module and command providers with their files edited.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import type { ProviderType } from '../../src/runtime/providers/types.js';
import { closeAll, expectCode, fakeTool, harness } from './helpers.js';

afterEach(closeAll);

/** A provider type whose code identity is whatever `code[name]` says now. */
function identifiedType(code: Record<string, string | undefined>, runs: string[]): ProviderType {
  return {
    type: 'ident',
    create: (entry) => ({
      name: entry.name,
      type: 'ident',
      call: async () => (runs.push(entry.name), 'ran'),
      ...(code[entry.name] !== undefined ? { codeIdentity: async () => code[entry.name]! } : {}),
    }),
  };
}

const gated = (providers: Array<{ name: string; priority: number }>) =>
  fakeTool('ops.deploy', {
    effects: { mode: 'write', sideEffects: 'write', risk: 'high', reversible: 'none' },
    approval: { required: true },
    providers: providers.map((p) => ({ ...p, config: { type: 'ident' } })),
  });

describe('an approval is bound to the code the call would run', () => {
  it.each([
    ['the first provider', 'a'],
    ['a fallback provider (every provider the call may use counts)', 'b'],
  ])('a changed identity of %s voids the pending approval and nothing runs', async (_label, changed) => {
    const code: Record<string, string | undefined> = { a: 'sha256:a1', b: 'sha256:b1' };
    const runs: string[] = [];
    const h = await harness([gated([{ name: 'a', priority: 0 }, { name: 'b', priority: 1 }])], { providers: new ProviderTypes({ empty: true }).register(identifiedType(code, runs)) });
    const r = await h.runtime.call('ops.deploy', {});
    if (r.status !== 'pending_approval') throw new Error('expected pending');
    expect(r.approval.codeHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    code[changed] = `${code[changed]}-edited`;
    const e = await expectCode(h.runtime.approve(r.approval.id, { by: 'alice' }), 'APPROVAL_VOID');
    expect(e.message).toMatch(/code .* changed since it was reviewed/);
    expect(runs).toEqual([]);
    const after = await h.runtime.getApproval(r.approval.id);
    expect(after.status).toBe('void');
    expect(after.note).toContain(r.approval.codeHash);
  });

  it('unchanged code runs, once', async () => {
    const code = { a: 'sha256:a1' };
    const runs: string[] = [];
    const h = await harness([gated([{ name: 'a', priority: 0 }])], { providers: new ProviderTypes({ empty: true }).register(identifiedType(code, runs)) });
    const r = await h.runtime.call('ops.deploy', {});
    if (r.status !== 'pending_approval') throw new Error('expected pending');
    const out = await h.runtime.approve(r.approval.id, { by: 'alice' });
    expect(out.approval.status).toBe('executed');
    expect(runs).toEqual(['a']);
  });

  it('a provider that cannot name its code binds to that fact: once it can, the approval is void (fails closed)', async () => {
    const code: Record<string, string | undefined> = {};
    const runs: string[] = [];
    const types = new ProviderTypes({ empty: true }).register({
      type: 'ident',
      create: (entry) => ({ name: entry.name, type: 'ident', call: async () => (runs.push(entry.name), 'ran'), codeIdentity: async () => code[entry.name] ?? Promise.reject(new Error('file missing')) }),
    });
    const h = await harness([gated([{ name: 'a', priority: 0 }])], { providers: types });
    const r = await h.runtime.call('ops.deploy', {});
    if (r.status !== 'pending_approval') throw new Error('expected pending');
    code['a'] = 'sha256:now-it-exists';
    await expectCode(h.runtime.approve(r.approval.id, { by: 'alice' }), 'APPROVAL_VOID');
    expect(runs).toEqual([]);
  });
});

describe('real providers: an edited file voids the approval', () => {
  it('module: the module file edited after the request', async () => {
    const h = await harness([], {});
    writeFileSync(join(h.dir, 'manifests', 'deploy.mjs'), 'export default () => "v1";\n');
    await h.rewrite(
      JSON.stringify({
        toolcap: 1,
        tools: [gatedReal({ name: 'mod', priority: 0, config: { type: 'module', module: './deploy.mjs', isolation: 'inline' } })],
      }),
    );
    const runtime = h.another({ providers: new ProviderTypes() });
    const r = await runtime.call('ops.deploy', {});
    if (r.status !== 'pending_approval') throw new Error('expected pending');
    writeFileSync(join(h.dir, 'manifests', 'deploy.mjs'), 'export default () => "swapped";\n');
    await expectCode(runtime.approve(r.approval.id, { by: 'alice' }), 'APPROVAL_VOID');
  });

  it.skipIf(process.platform === 'win32')('command: the executable edited after the request', async () => {
    const h = await harness([], {});
    const script = join(h.dir, 'manifests', 'deploy.sh');
    writeFileSync(script, '#!/bin/sh\necho \'"v1"\'\n');
    chmodSync(script, 0o755);
    await h.rewrite(JSON.stringify({ toolcap: 1, tools: [gatedReal({ name: 'cmd', priority: 0, config: { type: 'command', command: './deploy.sh' } })] }));
    const runtime = h.another({ providers: new ProviderTypes() });
    const r = await runtime.call('ops.deploy', {});
    if (r.status !== 'pending_approval') throw new Error('expected pending');
    writeFileSync(script, '#!/bin/sh\necho \'"swapped"\'\n');
    await expectCode(runtime.approve(r.approval.id, { by: 'alice' }), 'APPROVAL_VOID');
  });
});

function gatedReal(provider: Record<string, unknown>) {
  return fakeTool('ops.deploy', { effects: { mode: 'write', sideEffects: 'write', risk: 'high', reversible: 'none' }, approval: { required: true }, providers: [provider] });
}
