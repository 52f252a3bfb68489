/**
 * A project for the OAuth tests: a toolcap config with its own SQLite store
 * and key variable, and a tool (`me.profile`) whose module reads the
 * connected user's profile with the access token its context carries.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface OAuthProject {
  dir: string;
  config: string;
  db: string;
  keyEnv: string;
  /** The tool's name. */
  tool: string;
  cleanup(): void;
}

export interface ServiceFields {
  name?: string;
  authorizationUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret?: string;
  redirectUrl?: string;
  scopes?: string[];
  pkceType?: string;
  refreshToken?: string;
  requestTokenContentType?: string;
  requestTokenAuthHeader?: string;
}

/** The module the tool runs: GET `args.userinfo` with the token, or leak the token in an error when `args.leak`. */
const PROFILE_MODULE = `
export async function run(args, ctx) {
  const svc = ctx.oauth && ctx.oauth[args.service ?? 'idp'];
  if (!svc) throw new Error('no OAuth token in the context');
  if (args.leak) throw new Error('upstream refused ' + svc.accessToken);
  const res = await fetch(args.userinfo, { headers: { authorization: 'Bearer ' + svc.accessToken } });
  if (!res.ok) throw new Error('userinfo answered ' + res.status);
  const me = await res.json();
  return { sub: me.sub, email: me.email ?? null, tokenType: svc.tokenType };
}
`;

/** With `userinfoBase`, a second tool `me.userinfo` runs on the http provider (GET <base>/me, the token sent by the provider). */
export function oauthProject(services: ServiceFields[], options: { secretKeyEnv?: string; userinfoBase?: string } = {}): OAuthProject {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-oauth-'));
  const keyEnv = options.secretKeyEnv ?? `TOOLCAP_TEST_KEY_${process.pid}_${Math.random().toString(16).slice(2, 8).toUpperCase()}`;
  mkdirSync(join(dir, 'tools'));
  writeFileSync(join(dir, 'tools', 'profile.mjs'), PROFILE_MODULE);
  const tool = {
    name: 'me.profile',
    version: '1.0.0',
    description: 'Read the connected user profile from the identity provider.',
    inputSchema: { type: 'object', properties: { userinfo: { type: 'string' }, service: { type: 'string' }, leak: { type: 'boolean' } }, additionalProperties: false },
    effects: { mode: 'read', sideEffects: 'none', risk: 'low' },
    approval: { required: false },
    execution: { timeoutSec: 10 },
    auth: { required: true, type: 'oauth2', oauth: services.map((s) => ({ version: '2.0', responseType: 'code', ...s, name: s.name ?? 'idp' })) },
    providers: [{ name: 'local', priority: 0, config: { type: 'module', module: './profile.mjs', export: 'run' } }],
  };
  const httpTool = options.userinfoBase === undefined ? [] : [
    {
      ...tool,
      name: 'me.userinfo',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      providers: [{ name: 'idp-http', priority: 0, config: { type: 'http', method: 'GET', baseUrl: options.userinfoBase, path: '/me' } }],
    },
  ];
  writeFileSync(join(dir, 'tools', 'profile.json'), JSON.stringify({ toolcap: 1, tools: [tool, ...httpTool] }, null, 2));
  const config = join(dir, 'toolcap.config.yaml');
  writeFileSync(config, `sources: [tools/]\nstore: { path: .toolcap/toolcap.db, secretKeyEnv: ${keyEnv} }\n`);
  return { dir, config, db: join(dir, '.toolcap', 'toolcap.db'), keyEnv, tool: 'me.profile', cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A fresh 256-bit key, base64. */
export function newKey(): string {
  return Buffer.from(Array.from({ length: 32 }, () => Math.floor(Math.random() * 256))).toString('base64');
}
