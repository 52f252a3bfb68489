/**
 * The provider type registry: the built-in types (`module`, `http`,
 * `command`, `mcp`, and ATLAS's `google_cse`, `serpapi`, `openai`,
 * `internal_http_client`) plus custom ones, and the step that turns a tool's
 * provider entries into runnable instances in the order the router tries
 * them.
 * @module
 */
import type { Provider, Tool } from '../../model/schema.js';
import { commandProviderType } from './command.js';
import { httpProviderType } from './http.js';
import { internalHttpClientProviderType, openAiProviderType } from './http-aliases.js';
import { createMcpProviderType, type McpConnector } from './mcp.js';
import { moduleProviderType } from './module.js';
import { pythonProviderType } from './python.js';
import { isPythonImplementation } from '../../load/python-modules.js';
import { googleCseProviderType, serpApiProviderType } from './web-search.js';
import { ProviderConfigError, type ProviderEnvironment, type ProviderInstance, type ProviderType } from './types.js';
import { errorMessage } from '../../model/errors.js';

/** Priority of an entry that does not give one. */
export const DEFAULT_PROVIDER_PRIORITY = 0;

/** One provider entry of a tool, ready to run or with why it cannot. */
export interface ProviderSlot {
  /** The manifest entry (synthesised `{ name: 'module', priority: 0 }` for the `implementation.module` fallback). */
  entry: Provider;
  /** Its priority (`entry.priority`, else {@link DEFAULT_PROVIDER_PRIORITY}). */
  priority: number;
  /** The type it was made by, when known. */
  type?: string;
  instance?: ProviderInstance;
  /** Why there is no instance: unknown type, unusable config. */
  error?: string;
}

export interface ProviderTypesOptions {
  /** The MCP client for the built-in `mcp` type (none: MCP providers are unavailable). */
  mcpConnector?: McpConnector;
  /** Register no built-in types. */
  empty?: boolean;
}

/** The built-in provider types (the ATLAS names last: web-search.ts, http-aliases.ts). */
export function builtinProviderTypes(options: { mcpConnector?: McpConnector } = {}): ProviderType[] {
  return [
    moduleProviderType, httpProviderType, commandProviderType, createMcpProviderType(options.mcpConnector), pythonProviderType,
    googleCseProviderType, serpApiProviderType, openAiProviderType, internalHttpClientProviderType,
  ];
}

/** Provider types by name. */
export class ProviderTypes {
  private readonly types = new Map<string, ProviderType>();

  constructor(options: ProviderTypesOptions = {}) {
    if (!options.empty) {
      for (const t of builtinProviderTypes(options.mcpConnector ? { mcpConnector: options.mcpConnector } : {})) this.register(t);
    }
  }

  /** Add a custom type. Throws when a type of that name is already registered. */
  register(type: ProviderType): this {
    if (typeof type.type !== 'string' || type.type === '') throw new TypeError('a provider type needs a non-empty "type" name');
    if (this.types.has(type.type)) throw new Error(`provider type "${type.type}" is already registered`);
    this.types.set(type.type, type);
    return this;
  }

  get(type: string): ProviderType | undefined {
    return this.types.get(type);
  }

  has(type: string): boolean {
    return this.types.has(type);
  }

  /** Registered type names, in registration order. */
  names(): string[] {
    return [...this.types.keys()];
  }

  /** Which type an entry is: `config.type` when it is a string, else the entry's name when a type of that name is registered. */
  typeOf(entry: Provider): string | undefined {
    const declared = entry.config?.['type'];
    if (typeof declared === 'string' && declared !== '') return declared;
    return this.types.has(entry.name) ? entry.name : undefined;
  }

  /**
   * Every provider entry of `tool`, in the order to try them: ascending
   * priority (missing = 0), ties in manifest order. A tool without providers
   * but with `implementation.module` gets one `module` slot. Never throws:
   * entries that cannot be made carry `error`.
   */
  instantiate(tool: Tool, environment: Partial<ProviderEnvironment> = {}): ProviderSlot[] {
    const env: ProviderEnvironment = { ...environment, env: environment.env ?? process.env, baseDir: environment.baseDir ?? process.cwd() };
    const entries = providerEntries(tool);
    const slots = entries.map((entry, index) => ({ entry, index, priority: priorityOf(entry) }));
    slots.sort((a, b) => a.priority - b.priority || a.index - b.index);
    return slots.map(({ entry, priority }) => this.make(entry, priority, tool, env));
  }

  private make(entry: Provider, priority: number, tool: Tool, environment: ProviderEnvironment): ProviderSlot {
    const typeName = this.typeOf(entry);
    const type = typeName === undefined ? undefined : this.types.get(typeName);
    if (typeName === undefined || type === undefined) {
      const named = typeName ?? entry.name;
      return {
        entry,
        priority,
        error:
          `unknown provider type "${named}" for provider "${entry.name}" of tool "${tool.name}" ` +
          `(registered: ${this.names().join(', ') || 'none'}; set config.type or register a type named "${named}")`,
      };
    }
    try {
      return { entry, priority, type: typeName, instance: type.create(entry, tool, environment) };
    } catch (err) {
      const message = errorMessage(err);
      return {
        entry,
        priority,
        type: typeName,
        error: err instanceof ProviderConfigError ? message : `provider type "${typeName}" failed to create provider "${entry.name}": ${message}`,
      };
    }
  }
}

function priorityOf(entry: Provider): number {
  const p = entry.priority;
  return typeof p === 'number' && Number.isFinite(p) ? p : DEFAULT_PROVIDER_PRIORITY;
}

/** The tool's provider entries, or the `implementation.module` fallback. */
function providerEntries(tool: Tool): Provider[] {
  if (tool.providers && tool.providers.length > 0) return tool.providers;
  if (tool.implementation?.module !== undefined && tool.implementation.module !== '') {
    return [{ name: isPythonImplementation(tool) ? 'python' : 'module', priority: DEFAULT_PROVIDER_PRIORITY }];
  }
  return [];
}
