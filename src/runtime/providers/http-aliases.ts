/**
 * ATLAS provider names that are the `http` provider with a fixed shape:
 *
 * - `internal_http_client`: the `http` provider as is, with ATLAS's `url`
 *   accepted for `baseUrl` (the whole address of the operation).
 * - `openai`: one POST to the OpenAI API, `/v1/chat/completions` (default)
 *   or `/v1/responses` (`config.endpoint: responses`), with the key sent as
 *   `Authorization: Bearer` from `config.api_key_env`, else the first
 *   `auth.envs` name matching `OPENAI…KEY`, else `OPENAI_API_KEY`. The
 *   request body is `{ model, messages }` (chat) or `{ model, instructions,
 *   input }` (responses): the tool's description is the system message or
 *   the instructions, and the arguments are the user message (a `messages`
 *   or `input` argument is sent as given). The result is `{ text, response }`:
 *   the model's text and the API's whole answer. `baseUrl` overrides
 *   `https://api.openai.com` (a proxy, Azure-style gateway or a test stand-in).
 *
 * Both run through the `http` provider, so egress, redirects, body limits
 * and error classification are the same (docs/providers.md).
 * @module
 */
import type { Provider, Tool } from '../../model/schema.js';
import { httpProviderType } from './http.js';
import { ProviderConfigError, type ProviderCallContext, type ProviderEnvironment, type ProviderInstance, type ProviderType } from './types.js';

/** The `internal_http_client` provider type: `http`, with `url` as an alias of `baseUrl`. */
export const internalHttpClientProviderType: ProviderType = {
  type: 'internal_http_client',
  create(entry: Provider, tool: Tool, environment: ProviderEnvironment): ProviderInstance {
    const config = entry.config ?? {};
    const url = config['url'];
    const mapped = url === undefined || config['baseUrl'] !== undefined ? config : { ...config, baseUrl: url };
    const instance = httpProviderType.create({ ...entry, config: mapped }, tool, environment);
    return Object.assign(instance, { type: 'internal_http_client' });
  },
};

const OPENAI_ENDPOINTS = { chat: '/v1/chat/completions', responses: '/v1/responses' } as const;

/** The variable holding the OpenAI key for this entry. */
export function openAiKeyEnv(entry: Provider, tool: Tool): string {
  const named = entry.config?.['api_key_env'] ?? entry.config?.['apiKeyEnv'];
  if (typeof named === 'string' && named !== '') return named;
  return Object.keys(tool.auth?.envs ?? {}).find((n) => /^OPENAI.*KEY$/.test(n)) ?? 'OPENAI_API_KEY';
}

/** The model's text in a chat-completions or responses answer. */
function textOf(response: unknown): string | undefined {
  if (typeof response !== 'object' || response === null) return undefined;
  const r = response as { choices?: Array<{ message?: { content?: unknown } }>; output_text?: unknown; output?: Array<{ content?: Array<{ text?: unknown }> }> };
  const chat = r.choices?.[0]?.message?.content;
  if (typeof chat === 'string') return chat;
  if (typeof r.output_text === 'string') return r.output_text;
  const parts = (r.output ?? []).flatMap((o) => o.content ?? []).map((c) => c.text).filter((t): t is string => typeof t === 'string');
  return parts.length > 0 ? parts.join('') : undefined;
}

class OpenAiInstance implements ProviderInstance {
  readonly type = 'openai';
  constructor(
    readonly name: string,
    private readonly http: ProviderInstance,
    private readonly endpoint: keyof typeof OPENAI_ENDPOINTS,
    private readonly model: string,
    private readonly instructions: string | undefined,
  ) {}

  ready() {
    return this.http.ready?.() ?? { healthy: true };
  }

  async codeIdentity(): Promise<string> {
    return (await this.http.codeIdentity?.()) ?? `openai:${this.endpoint}:${this.model}`;
  }

  async close(): Promise<void> {
    await this.http.close?.();
  }

  async call(args: Record<string, unknown>, context: ProviderCallContext): Promise<unknown> {
    const user = JSON.stringify(args);
    const body =
      this.endpoint === 'chat'
        ? { model: this.model, messages: Array.isArray(args['messages']) ? args['messages'] : [...(this.instructions ? [{ role: 'system', content: this.instructions }] : []), { role: 'user', content: user }] }
        : { model: this.model, ...(this.instructions ? { instructions: this.instructions } : {}), input: args['input'] ?? user };
    const response = await this.http.call({ body }, context);
    return { text: textOf(response) ?? null, response };
  }
}

/** The `openai` provider type (see the module comment). */
export const openAiProviderType: ProviderType = {
  type: 'openai',
  create(entry: Provider, tool: Tool, environment: ProviderEnvironment): ProviderInstance {
    const config = entry.config ?? {};
    const where = `provider "${entry.name}" of tool "${tool.name}"`;
    const model = config['model'];
    if (typeof model !== 'string' || model === '') throw new ProviderConfigError(`${where}: config.model must name the model (e.g. "gpt-4o-mini")`);
    const endpoint = config['endpoint'] ?? 'chat';
    if (endpoint !== 'chat' && endpoint !== 'responses') throw new ProviderConfigError(`${where}: config.endpoint must be "chat" or "responses"`);
    const baseUrl = environment.baseUrls?.['openai'] ?? config['baseUrl'] ?? 'https://api.openai.com';
    const http: Provider = {
      name: entry.name,
      config: {
        baseUrl,
        method: 'POST',
        path: OPENAI_ENDPOINTS[endpoint],
        parameters: { body: { in: 'body', name: 'body' } },
        auth: { type: 'bearer', env: openAiKeyEnv(entry, tool) },
        ...(config['healthCheckIntervalSec'] !== undefined ? { healthCheckIntervalSec: config['healthCheckIntervalSec'] } : {}),
      },
    };
    return new OpenAiInstance(entry.name, httpProviderType.create(http, tool, environment), endpoint, model, tool.description);
  },
};
