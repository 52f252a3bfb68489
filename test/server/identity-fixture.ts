/**
 * An API with authentication on, for the identity tests: the runtime
 * examples copied to a temp folder, with a tool only persona "ops" sees, an
 * "ops" version of the approval-gated notes.append that needs no approval,
 * and a policy rule that gates text.reverse for persona "intern"; a SQLite
 * store; and a fake `authenticate` mapping test bearer tokens to principals
 * (the real Authenticator, API keys and OIDC, is tested in test/runtime).
 */
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { Registry } from '../../src/registry/registry.js';
import type { AuthOutcome } from '../../src/runtime/identity/authenticate.js';
import type { RequestHead } from '../../src/server/auth.js';
import type { Principal } from '../../src/runtime/identity/principal.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { Runtime, type RuntimeOptions } from '../../src/runtime/runtime.js';
import { createApi, type ApiOptions } from '../../src/server/app.js';
import { LearnedTools } from '../../src/runtime/learned/learned-tools.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { BASE, folder } from './helpers.js';

const SCOPED = `toolcap: 1
tools:
  - name: ops.reverse
    version: 1.0.0
    description: Reverse text, for the ops persona only.
    scope: { personas: [ops] }
    inputSchema: { type: object, properties: { text: { type: string } }, required: [text], additionalProperties: false }
    effects: { mode: read, sideEffects: compute, risk: low, reversible: full }
    approval: { required: false }
    providers:
      - { name: local, priority: 0, config: { type: module, module: ./providers/text.mjs, export: reverse } }
  - name: notes.append
    version: 1.0.0
    description: The ops persona's notes, which need no approval.
    scope: { personas: [ops] }
    inputSchema: { type: object, properties: { line: { type: string } }, required: [line], additionalProperties: false }
    effects: { mode: write, sideEffects: filesystem, risk: low, reversible: partial }
    approval: { required: false }
    providers:
      - { name: local-file, priority: 0, config: { type: module, module: ./providers/notes.mjs, export: append } }
`;

/** The principals behind the test tokens. */
export const PRINCIPALS = {
  ops: { id: 'ops-bot', roles: ['caller'], personas: ['ops'], defaultPersona: 'ops', via: 'api-key' },
  intern: { id: 'intern-bot', roles: ['caller'], personas: ['intern'], defaultPersona: 'intern', via: 'api-key' },
  approver: { id: 'reviewer', roles: ['approver'], personas: [], approves: { personas: ['*'], tools: ['*'] }, via: 'oidc' },
  admin: { id: 'root', roles: ['admin'], personas: ['*'], via: 'api-key' },
} as const satisfies Record<string, Principal>;

export type Who = keyof typeof PRINCIPALS | 'none' | 'bad' | 'down';

/** The Authorization header a test principal sends (none: no header). */
export function bearer(who: Who): Record<string, string> {
  return who === 'none' ? {} : { authorization: `Bearer tok-${who}` };
}

/** The fake authenticator: `tok-<name>` is that principal, `tok-down` an unreachable issuer, anything else a bad token. */
export async function authenticate(request: RequestHead): Promise<AuthOutcome> {
  const header = request.headers.get('authorization');
  if (header === null) return { ok: false, code: 'UNAUTHENTICATED', message: 'No credentials.' };
  const name = /^Bearer tok-(\w+)$/.exec(header)?.[1];
  if (name === 'down') return { ok: false, code: 'UNAVAILABLE', message: 'The issuer cannot be reached.' };
  const principal = name === undefined ? undefined : (PRINCIPALS as Record<string, Principal>)[name];
  return principal ? { ok: true, principal } : { ok: false, code: 'INVALID_TOKEN', message: 'Unknown token.' };
}

export interface IdentityApi {
  app: Hono;
  runtime: Runtime;
  registry: Registry;
  learned: LearnedTools;
  store: Store;
  close(): Promise<void>;
}

/** The host and origin the test app serves (the in-process base URL). */
export const HOST = new URL(BASE).host;
export const ORIGIN = new URL(BASE).origin;

/** Build the app; `runtime` and `api` options are merged over the defaults; `files` are written into the manifest folder (more tools). */
export async function identityApi(runtimeOptions: Partial<RuntimeOptions> = {}, apiOptions: ApiOptions = {}, files: Record<string, string> = {}): Promise<IdentityApi> {
  const root = folder('toolcap-identity-');
  const manifests = join(root, 'examples', 'manifests', 'toolcap');
  mkdirSync(manifests, { recursive: true });
  cpSync('examples/manifests/toolcap', manifests, { recursive: true });
  writeFileSync(join(manifests, 'scoped.yaml'), SCOPED);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(manifests, file), text);
  const learned = new LearnedTools();
  const registry = new Registry({ paths: [manifests, learned.layer()] });
  await registry.start();
  const store = await openSqliteStore(join(root, 'store', 'toolcap.db'));
  await learned.load(store, registry);
  const runtime = new Runtime({
    registry,
    store,
    providers: new ProviderTypes(),
    rules: [{ tools: ['text.reverse'], personas: ['intern'], reason: 'Interns ask first.' }],
    onWarning: () => {},
    ...runtimeOptions,
  });
  const app = createApi(registry, {
    runtime,
    learned,
    auth: { authenticate, resourceMetadata: { resource: `${ORIGIN}/`, authorizationServers: ['https://issuer.example'] } },
    allowedHosts: [HOST],
    allowedOrigins: [ORIGIN],
    mcp: async (_request, context) => Response.json({ principal: context.principal?.id ?? null }),
    // a 500 here is a bug: show it
    onError: (e) => console.error(e),
    ...apiOptions,
  });
  return {
    app,
    runtime,
    learned,
    registry,
    store,
    async close() {
      await runtime.close();
      await registry.close();
      await store.close();
    },
  };
}
