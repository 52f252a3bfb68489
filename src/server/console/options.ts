/**
 * What the console is told beyond the API's own options: the pieces of a
 * running toolcap that only the host knows (its layers, its MCP servers,
 * its trace file).
 * @module
 */
import type { LayerInput } from '../../load/loader.js';
import type { McpServerStatus } from '../../mcp/clients.js';
import type { OidcLoginOptions } from './oidc-login.js';
import type { SessionOptions } from './session.js';

export interface ConsoleOptions {
  /** The layers the registry loads, in order (shown on the health page). */
  layers?: () => readonly LayerInput[];
  /** The MCP servers and their state; they can change when the config does. */
  mcpServers?: () => readonly McpServerStatus[];
  /** Session lifetime and count. */
  sessions?: SessionOptions;
  /** How often the approval queue's event stream looks for new requests, ms. @default 2000 */
  pollMs?: number;
  /** The trace file spans are written to (`toolcap serve`'s `traces.jsonl`): the audit page shows a call's spans from it. */
  traceFile?: string;
  /** Whether credentials are checked (a sign-out button means something). @default true when the API has `auth` */
  signIn?: boolean;
  /** Browser sign-in with the OpenID provider (authorization code + PKCE); absent: the login page takes only a pasted credential. */
  oidcLogin?: OidcLoginOptions;
}
