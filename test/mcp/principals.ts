/** Principals for the MCP identity tests: a caller, an approver, a second caller and the local admin of a single-user setup. */
import type { Principal } from '../../src/runtime/identity/principal.js';

/** An agent: calls within the ops persona (and the shared tools). */
export const ALICE: Principal = { id: 'alice', roles: ['caller'], personas: ['ops'], via: 'api-key' };
/** Another agent with the same grants. */
export const CAROL: Principal = { id: 'carol', roles: ['caller'], personas: ['ops'], via: 'api-key' };
/** A reviewer who may decide every approval. */
export const BOB: Principal = { id: 'bob', roles: ['approver'], personas: [], approves: { personas: ['*'], tools: ['*'] }, via: 'api-key' };
/** The one local user of a single-user install (what `toolcap mcp serve` runs as). */
export const LOCAL: Principal = { id: 'local', roles: ['admin'], personas: ['*'], via: 'local' };
