/**
 * audit_status through config and runtime: `runtime.allowAuditStatus` gates
 * exposure, and the built-in approval rule makes `experimental` tools wait
 * for a person. Real host, real module provider, real SQLite store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolcap, type Toolcap } from '../../src/host.js';
import { loadConfig } from '../../src/config/config.js';
import { approvalReason, BUILT_IN_RULES } from '../../src/runtime/approval-rules.js';
import { CallError } from '../../src/runtime/errors.js';
import { cli } from '../cli/helpers.js';

const folders: string[] = [];
const opened: Toolcap[] = [];
afterEach(async () => {
  for (const t of opened.splice(0)) await t.close();
  for (const d of folders.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A temp copy of the audit fixture with a config whose `runtime` section is `runtime` (YAML). */
function project(runtime?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-audit-'));
  folders.push(dir);
  cpSync('test/fixtures/pylot/audit', dir, { recursive: true });
  const file = join(dir, 'toolcap.config.yaml');
  writeFileSync(file, `sources: [tools.yaml]\n${runtime ? `runtime:\n${runtime}\n` : ''}`);
  return file;
}

async function open(runtime?: string): Promise<Toolcap> {
  const toolcap = await createToolcap(project(runtime), { warn: () => undefined });
  opened.push(toolcap);
  return toolcap;
}

/** What one call does: ran, waits for approval, or fails with an error code. */
async function outcome(toolcap: Toolcap, tool: string): Promise<string> {
  try {
    const r = await toolcap.runtime.call(tool, { text: 'hi' }, { caller: 'tester' });
    return r.status === 'pending_approval' ? 'pending_approval' : r.status;
  } catch (error) {
    if (error instanceof CallError) return error.code;
    throw error;
  }
}

describe('audit_status gates exposure and approval', () => {
  it.each<[string, string | undefined, Record<string, string>]>([
    ['default: experimental is listed but waits for approval', undefined, { echo_trusted: 'ok', echo_experimental: 'pending_approval', echo_unset: 'ok' }],
    ['allowAuditStatus: [trusted]', '  allowAuditStatus: [trusted]', { echo_trusted: 'ok', echo_experimental: 'TOOL_DISABLED', echo_unset: 'TOOL_DISABLED' }],
    ['allowAuditStatus: [trusted, unset]', '  allowAuditStatus: [trusted, unset]', { echo_trusted: 'ok', echo_experimental: 'TOOL_DISABLED', echo_unset: 'ok' }],
    ['allowAuditStatus: [experimental, trusted]', '  allowAuditStatus: [experimental, trusted]', { echo_trusted: 'ok', echo_experimental: 'pending_approval', echo_unset: 'TOOL_DISABLED' }],
  ])('%s', async (_label, runtime, expected) => {
    const toolcap = await open(runtime);
    const got: Record<string, string> = {};
    for (const tool of Object.keys(expected)) got[tool] = await outcome(toolcap, tool);
    expect(got).toEqual(expected);
    const listed = toolcap.registry.snapshot().toolsFor().map((t) => t.name).sort();
    expect(listed).toEqual(Object.keys(expected).filter((t) => expected[t] !== 'TOOL_DISABLED').sort());
  });

  it('the pending approval says it is the audit status that asks', async () => {
    const toolcap = await open();
    const r = await toolcap.runtime.call('echo_experimental', { text: 'hi' }, { caller: 'tester' });
    expect(r.status).toBe('pending_approval');
    if (r.status === 'pending_approval') expect(r.approval.reason).toContain('audit_status is experimental');
  });

  it('the built-in rule is a rule: a configured rule may name audit states too, and matches first', () => {
    const tool = { name: 'x', auditStatus: 'trusted' as const, effects: { mode: 'read' as const } };
    expect(approvalReason(tool, undefined, [])).toBeUndefined();
    expect(approvalReason(tool, undefined, [{ auditStatus: ['trusted'], reason: 'we review trusted tools too' }])).toBe('we review trusted tools too');
    expect(approvalReason({ ...tool, auditStatus: 'experimental' }, undefined, [])).toBe(BUILT_IN_RULES[0]?.reason);
  });

  it('validate --config says which tools the allow-list hides, at their place', async () => {
    const file = project('  allowAuditStatus: [trusted]');
    const { code, stdout, stderr } = await cli('validate', '--config', file, '--json');
    expect(code).toBe(0);
    const diagnostics = (JSON.parse(stdout) as { diagnostics: Array<{ code: string; line?: number }> }).diagnostics.filter((d) => d.code === 'AUDIT_STATUS_GATED');
    expect(diagnostics.map((d) => d.line)).toEqual([14, 20]);
    expect(stderr).toBeDefined();
  });
});

describe('config: runtime.allowAuditStatus and approval rules by audit status', () => {
  it.each<[string, string, { ok: boolean; value?: unknown }]>([
    ['a list of states', 'runtime:\n  allowAuditStatus: [trusted, unset]\n', { ok: true, value: ['trusted', 'unset'] }],
    ['an unknown state', 'runtime:\n  allowAuditStatus: [reviewed]\n', { ok: false }],
    ['an approval rule by audit status', 'approvals:\n  rules:\n    - { auditStatus: [unset], reason: unreviewed }\n', { ok: true }],
    ['an approval rule with an unknown state', 'approvals:\n  rules:\n    - { auditStatus: [maybe] }\n', { ok: false }],
  ])('%s', (_label, yaml, expected) => {
    const file = project();
    writeFileSync(file, `sources: [tools.yaml]\n${yaml}`);
    const { config, diagnostics } = loadConfig(file);
    expect(diagnostics.filter((d) => d.severity === 'error').length === 0).toBe(expected.ok);
    if (expected.value !== undefined) expect(config?.runtime.allowAuditStatus).toEqual(expected.value);
  });
});
