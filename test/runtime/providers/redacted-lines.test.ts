// What a module worker prints reaches stderr without the OAuth tokens its calls were handed.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { moduleProviderType } from '../../../src/runtime/providers/module.js';
import { RedactedLines } from '../../../src/runtime/providers/redacted-lines.js';
import type { ProviderInstance } from '../../../src/runtime/providers/types.js';
import { contextFor } from './contract.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/providers/', import.meta.url));
const TOKEN = 'ya29.a0AfB_byC-token-0123456789abcdef';

describe('RedactedLines', () => {
  it('redacts a secret split across chunks, line by line, and flushes the rest', () => {
    const out: string[] = [];
    const lines = new RedactedLines((t) => out.push(t));
    lines.remember([TOKEN]);
    lines.push(`token ${TOKEN.slice(0, 10)}`);
    expect(out).toEqual([]); // no line end yet
    lines.push(`${TOKEN.slice(10)} sent\npartial ${TOKEN}`);
    lines.flush();
    expect(out.join('')).toBe('token [REDACTED] sent\npartial [REDACTED]');
  });

  it('keeps the latest 32 secrets', () => {
    const out: string[] = [];
    const lines = new RedactedLines((t) => out.push(t));
    const secrets = Array.from({ length: 40 }, (_, i) => `secret-value-number-${String(i).padStart(2, '0')}`);
    lines.remember(secrets);
    lines.push(`${secrets[0]} ${secrets[39]}\n`);
    expect(out.join('')).toBe(`${secrets[0]} [REDACTED]\n`);
  });
});

describe('a module tool in a worker that prints its token', () => {
  const made: ProviderInstance[] = [];
  afterEach(async () => {
    for (const p of made.splice(0)) await p.close?.();
    vi.restoreAllMocks();
  });

  it('reaches stderr redacted', async () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    const p = moduleProviderType.create({ name: 'm', config: { module: './print-token.mjs', export: 'run', isolation: 'worker' } }, { name: 'print.test' }, { env: {}, baseDir: FIXTURES });
    made.push(p);
    await expect(p.call({}, { ...contextFor(), oauth: { svc: { accessToken: TOKEN, tokenType: 'bearer' } } })).resolves.toEqual({ ok: true });
    await vi.waitFor(() => expect(written.join('')).toMatch(/Authorization: Bearer/));
    expect(written.join('')).toContain('Bearer [REDACTED]');
    expect(written.join('')).not.toContain(TOKEN);
  });
});
