/**
 * The official MCP Registry's address, on its own so that the command line
 * can show it in `mcp add --help` without loading the registry code.
 * @module
 */

/** The official registry, asked when the source is an entry name and no --registry is given. */
export const DEFAULT_REGISTRY = 'https://registry.modelcontextprotocol.io';
