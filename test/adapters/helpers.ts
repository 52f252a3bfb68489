/**
 * A toolcap for the adapter tests: a temp copy of test/fixtures/adapters
 * (three tools with in-process module providers), a real SQLite store, a
 * config rule putting network side effects behind approval, and optionally
 * the real HTTP API over it.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { createToolcap, type Toolcap } from '../../src/host.js';
import { createApi } from '../../src/server/app.js';
import { listen, type RunningServer } from '../../src/server/listen.js';

export interface AdapterProject {
  toolcap: Toolcap;
  dir: string;
  close(): Promise<void>;
}

export async function adapterProject(): Promise<AdapterProject> {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-adapters-'));
  cpSync('test/fixtures/adapters', dir, { recursive: true });
  const config = join(dir, 'toolcap.config.yaml');
  writeFileSync(
    config,
    ['sources: [tools.yaml]', 'store: { path: .toolcap/toolcap.db }', 'approvals:', '  rules:', '    - { minSideEffects: network, modes: [write], reason: "writes that leave the machine need review" }', ''].join('\n'),
  );
  const toolcap = await createToolcap(config, { warn: () => undefined });
  return {
    toolcap,
    dir,
    async close() {
      await toolcap.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The real HTTP API over the project's registry and runtime, on a free port. */
export function serve(project: AdapterProject): Promise<RunningServer> {
  return listen(createApi(project.toolcap.registry, { runtime: project.toolcap.runtime }), { port: 0 });
}

/**
 * What a test file opens, closed after each test, last first: `closing`
 * takes any closer (a server), `project()` opens a project that closes itself.
 */
export function perTest(): { closing: Array<() => Promise<void>>; project: () => Promise<AdapterProject> } {
  const closing: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });
  const project = async () => {
    const p = await adapterProject();
    closing.push(() => p.close());
    return p;
  };
  return { closing, project };
}
