/**
 * What the console says changed in the last reloads: a saved edit that
 * raises a tool's risk and makes it write is an escalation without a
 * version bump (it fails `toolcap diff`), shown on the tool's page and
 * counted on the health page; the diff is the drift stage's own.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from '../../../src/registry/registry.js';
import { createApi } from '../../../src/server/app.js';

const manifest = (mode: string, risk: string) => `toolcap: 1
tools:
  - name: files.tidy
    version: 1.0.0
    description: Tidy a folder.
    effects: { mode: ${mode}, sideEffects: ${mode === 'read' ? 'none' : 'filesystem'}, risk: ${risk} }
  - name: files.list
    version: 1.0.0
    description: List a folder.
    effects: { mode: read, sideEffects: none, risk: low }
`;

let dir: string;
let registry: Registry;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolcap-console-history-'));
  writeFileSync(join(dir, 'tools.yaml'), manifest('read', 'low'));
  registry = new Registry({ paths: [dir] });
  await registry.start();
});
afterAll(async () => {
  await registry.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the change history', () => {
  it('classifies a reload as toolcap diff does, per tool and in the health summary', async () => {
    const app = createApi(registry, { console: {} });
    const before = await (await app.fetch(new Request('http://x/ui/tools/files.tidy'))).text();
    expect(before).toContain('No change to this tool in the reloads since the server started.');

    writeFileSync(join(dir, 'tools.yaml'), manifest('write', 'high'));
    expect((await registry.refresh({ force: true })).kind).toBe('reloaded');

    const page = await (await app.fetch(new Request('http://x/ui/tools/files.tidy'))).text();
    expect(page).toMatch(/version 1 → 2 at [^:]+:[^<]*: <strong>changed<\/strong>, <span class="bad">escalation<\/span> \(fails the diff/);
    expect(page).toMatch(/<code>effects\.mode<\/code> escalation: read → write/);
    const untouched = await (await app.fetch(new Request('http://x/ui/tools/files.list'))).text();
    expect(untouched).toContain('No change to this tool');
    const health = await (await app.fetch(new Request('http://x/ui/health'))).text();
    expect(health).toMatch(/0 added, 0 removed, 1 changed \(\d+ escalations/);
    expect(health).toContain('1 failing the diff');
  });
});
