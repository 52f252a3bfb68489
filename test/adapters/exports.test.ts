/**
 * The adapters are subpath exports: each `toolcap/adapters/<name>` maps to a
 * built entry whose source is in src/entries, and the frameworks they import
 * are optional peer dependencies (the main entry never loads them).
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as agents from '../../src/entries/adapters-openai-agents.js';
import * as aiSdk from '../../src/entries/adapters-ai-sdk.js';

const entries: Record<string, Record<string, unknown>> = { 'adapters-openai-agents': agents, 'adapters-ai-sdk': aiSdk };

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  exports: Record<string, { types: string; import: string }>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

describe('adapter subpath exports', () => {
  it.each([
    ['./adapters/openai-agents', 'adapters-openai-agents', '@openai/agents', 'toolcapAgentTools'],
    ['./adapters/ai-sdk', 'adapters-ai-sdk', 'ai', 'toolcapAiTools'],
  ])('%s', (subpath, entry, framework, factory) => {
    expect(pkg.exports[subpath]).toEqual({ types: `./dist/entries/${entry}.d.ts`, import: `./dist/entries/${entry}.js` });
    expect(existsSync(`src/entries/${entry}.ts`)).toBe(true);
    expect(pkg.peerDependenciesMeta[framework]).toEqual({ optional: true });
    expect(pkg.peerDependencies[framework]).toBeDefined();
    const module = entries[entry]!;
    expect(typeof module[factory]).toBe('function');
    expect(typeof module['inProcessClient']).toBe('function');
    expect(typeof module['httpClient']).toBe('function');
  });

  it('the main entry does not import a framework', () => {
    const index = readFileSync('src/index.ts', 'utf8');
    expect(index).not.toMatch(/adapters|@openai\/agents|from 'ai'/);
  });
});
