/**
 * `toolcap mcp add`: a server.json (the MCP Registry's format) becomes an
 * mcp.servers entry in the config, comments kept, secrets never written;
 * the reference servers installed from npm then really start and list their
 * tools through discovery (createToolcap, as `toolcap serve` does).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createToolcap, type Toolcap } from '../../src/host.js';
import { cli } from './helpers.js';

const FIXTURES = resolve('test/fixtures/mcp-registry');
const SEED = resolve('../shared/corpus/mcp-registry-seed/seed_2025_05_16.json');
const CONFIG = `# the team's toolcap
sources: [m]   # reviewed manifests

# approvals stay with a person
approvals: { selfApproval: true }
store: { path: .toolcap/toolcap.db }
`;

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A project folder with the config above, manifests in m/, and node_modules reachable (as in a checkout). */
function project(): { dir: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-mcp-add-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'm'));
  writeFileSync(join(dir, 'm', 'tools.yaml'), 'toolcap: 1\ntools: []\n');
  symlinkSync(resolve('node_modules'), join(dir, 'node_modules'));
  const config = join(dir, 'toolcap.config.yaml');
  writeFileSync(config, CONFIG);
  return { dir, config };
}

async function open(config: string): Promise<Toolcap> {
  const toolcap = await createToolcap(config, { traces: false, warn: () => undefined });
  cleanup.push(() => toolcap.close());
  return toolcap;
}

describe('toolcap mcp add', () => {
  it('writes the entry of an installed npm server, keeping the config\'s comments, and the server starts and lists its tools', { timeout: 60_000 }, async () => {
    const { dir, config } = project();
    const out = await cli('mcp', 'add', join(FIXTURES, 'memory.server.json'), '--config', config, '--name', 'memory');
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('added mcp.servers.memory');
    expect(out.stdout).toMatch(/MEMORY_FILE_PATH\s+environment variable MEMORY_FILE_PATH: Where the knowledge graph is kept/);
    const text = readFileSync(config, 'utf8');
    expect(text.startsWith(CONFIG)).toBe(true);
    expect(text).toContain('# from the MCP Registry: io.github.modelcontextprotocol/server-memory 2026.8.31');
    expect(text).toContain('command: node\n      args: [ ./node_modules/@modelcontextprotocol/server-memory/dist/index.js ]');
    expect(text).toContain('MEMORY_FILE_PATH: { env: MEMORY_FILE_PATH }');

    // unset, the server does not start, and says which variable to set
    delete process.env['MEMORY_FILE_PATH'];
    const without = await open(config);
    expect(without.mcp?.status()).toMatchObject([{ server: 'memory', state: expect.not.stringMatching(/^up$/), lastError: expect.stringContaining('set MEMORY_FILE_PATH') }]);
    await without.close();

    process.env['MEMORY_FILE_PATH'] = join(dir, 'memory.jsonl');
    cleanup.push(() => void delete process.env['MEMORY_FILE_PATH']);
    const toolcap = await open(config);
    expect(toolcap.mcp?.status()).toMatchObject([{ server: 'memory', state: 'up' }]);
    const names = toolcap.registry.snapshot().tools.map((t) => t.name).filter((n) => n.startsWith('mcp.memory.'));
    expect(names).toContain('mcp.memory.create_entities');
    expect(names).toContain('mcp.memory.read_graph');
    const read = await toolcap.runtime.call('mcp.memory.read_graph', {}, {});
    expect(read.status).toBe('pending_approval'); // discovered tools need consent until reviewed, as for any MCP server
  });

  it('a required argument becomes a ${NAME} reference; set, the filesystem server starts in that folder', { timeout: 60_000 }, async () => {
    const { dir, config } = project();
    const out = await cli('mcp', 'add', join(FIXTURES, 'filesystem.server.json'), '--config', config, '--name', 'files');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/FILES_ALLOWED_DIRECTORY\s+argument 1 \(allowed_directory\): A directory the server may read and write/);
    expect(readFileSync(config, 'utf8')).toContain('args: [ ./node_modules/@modelcontextprotocol/server-filesystem/dist/index.js, "${FILES_ALLOWED_DIRECTORY}" ]');
    process.env['FILES_ALLOWED_DIRECTORY'] = join(dir, 'm');
    cleanup.push(() => void delete process.env['FILES_ALLOWED_DIRECTORY']);
    const toolcap = await open(config);
    expect(toolcap.mcp?.status()).toMatchObject([{ server: 'files', state: 'up' }]);
    expect(toolcap.registry.snapshot().tools.map((t) => t.name)).toContain('mcp.files.list_allowed_directories');
  });

  it('remotes and images: headers and secrets as references, never their values', async () => {
    const { config } = project();
    const remote = await cli('mcp', 'add', join(FIXTURES, 'remote.server.json'), '--config', config, '--remote');
    expect(remote.code).toBe(0);
    const image = await cli('mcp', 'add', join(FIXTURES, 'remote.server.json'), '--config', config, '--name', 'issues-local');
    expect(image.code).toBe(0);
    const text = readFileSync(config, 'utf8');
    expect(text).not.toContain('tok_do_not_write_me');
    const servers = loadConfig(config).config!.mcp.servers;
    expect(servers.map((s) => [s.name, s.transport])).toEqual([['issues', 'http'], ['issues-local', 'stdio']]);
    expect(servers[0]).toMatchObject({ url: 'https://mcp.example.com/issues/mcp', headers: { Authorization: 'Bearer ${ISSUES_TOKEN}', 'X-Workspace': '${ISSUES_X_WORKSPACE}' } });
    expect(servers[1]).toMatchObject({
      command: 'docker',
      args: ['run', '-i', '--rm', '-e', 'ISSUES_TOKEN', '-e', 'ISSUES_REGION', 'ghcr.io/example/issues-mcp:1.4.0'],
      env: { ISSUES_TOKEN: '${ISSUES_TOKEN}', ISSUES_REGION: 'eu-west-1' },
    });
    expect(remote.stdout).toMatch(/ISSUES_TOKEN\s+\(secret\) header Authorization \(\{token\}\): API token/);
    expect(image.stdout).toContain('note: optional environment variable ISSUES_DEBUG left out (Verbose logs)');
  });

  it('an entry of the registry seed, by name; an existing name is refused without --force', async () => {
    const { config } = project();
    const first = await cli('mcp', 'add', 'io.github.adfin-engineering/mcp-server-adfin', '--registry', SEED, '--config', config, '--name', 'adfin');
    expect(first.code).toBe(0);
    expect(loadConfig(config).config!.mcp.servers[0]).toMatchObject({ name: 'adfin', command: 'uvx', args: ['adfinmcp@0.1.0', '--directory', '${ADFIN_DIRECTORY}', 'main_adfin_mcp.py'], env: { ADFIN_EMAIL: '${ADFIN_EMAIL}' } });
    const again = await cli('mcp', 'add', 'io.github.adfin-engineering/mcp-server-adfin', '--registry', SEED, '--config', config, '--name', 'adfin');
    expect(again).toMatchObject({ code: 2, stderr: expect.stringContaining('mcp.servers.adfin is already configured') });
    const forced = await cli('mcp', 'add', 'io.github.adfin-engineering/mcp-server-adfin', '--registry', SEED, '--config', config, '--name', 'adfin', '--force');
    expect(forced.code).toBe(0);
  });

  it.each<[string, string, RegExp]>([
    ['not JSON', '{ "name": ', /PARSE_ERROR/],
    ['no name', '{ "packages": [] }', /NOT_A_MANIFEST/],
    ['a package without registryType', '{\n  "name": "a/b",\n  "packages": [\n    { "identifier": "x" }\n  ]\n}', /:4:5: error MISSING_FIELD: A package needs "registryType"/],
    ['a wrong type', '{\n  "name": "a/b",\n  "packages": [\n    { "registryType": "npm", "identifier": "x",\n      "environmentVariables": "TOKEN" }\n  ]\n}', /:5:31: error TYPE_MISMATCH: "environmentVariables" must be an array/],
    ['an argument without type', '{\n  "name": "a/b",\n  "packages": [{ "registryType": "npm", "identifier": "x",\n    "packageArguments": [{ "value": "1" }] }]\n}', /:4:26: error MISSING_FIELD: An argument needs "type"/],
    ['a package toolcap cannot start', '{\n  "name": "a/b",\n  "packages": [{ "registryType": "mcpb", "identifier": "https://x/y.mcpb" }]\n}', /:3:16: error INVALID_VALUE: a\/b: Packages from the "mcpb" registry are not supported/],
    ['nothing to start', '{ "name": "a/b", "description": "d" }', /MISSING_FIELD: a\/b: the entry has no packages and no remotes/],
  ])('a malformed server.json (%s) gets a located diagnostic, and the config is untouched', async (_label, body, expected) => {
    const { dir, config } = project();
    const file = join(dir, 'server.json');
    writeFileSync(file, body);
    const out = await cli('mcp', 'add', file, '--config', config);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(expected);
    expect(readFileSync(config, 'utf8')).toBe(CONFIG);
  });
});
