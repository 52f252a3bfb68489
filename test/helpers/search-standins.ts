/**
 * Local stand-ins for the two web-search SaaS APIs, speaking their request
 * and response shapes as documented: Google Custom Search JSON API
 * (`GET /customsearch/v1?key=&cx=&q=&num=&start=` -> `{ items: [...] }`,
 * errors `{ error: { code, message, errors: [{ reason }], status } }`) and
 * SerpAPI (`GET /search.json?engine=google&q=&api_key=&num=` ->
 * `{ organic_results: [...] }`, errors `{ error: "..." }`). Each checks the
 * credentials it was started with and can be told to fail.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How a stand-in answers the next searches. */
export type StandInMode = 'ok' | 'rate-limited' | 'server-error' | 'quota' | 'empty';

export interface StandIn {
  url: string;
  /** Every request's path and query, in order. */
  requests: URL[];
  mode: StandInMode;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  res.end(JSON.stringify(body));
}

async function start(handle: (url: URL, res: ServerResponse, self: StandIn) => void): Promise<StandIn> {
  const self: StandIn = { url: '', requests: [], mode: 'ok', close: async () => {} };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    self.requests.push(url);
    if (req.method !== 'GET') return send(res, 405, { error: 'GET only' });
    handle(url, res, self);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  self.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return self;
}

const googleError = (res: ServerResponse, code: number, message: string, reason: string, status: string) =>
  send(res, code, { error: { code, message, errors: [{ message, domain: 'global', reason }], status } });

/** Google Custom Search JSON API, answering for one key and engine id. */
export function googleStandIn(key: string, cx: string): Promise<StandIn> {
  return start((url, res, self) => {
    if (url.pathname !== '/customsearch/v1') return googleError(res, 404, 'Not Found', 'notFound', 'NOT_FOUND');
    const q = url.searchParams.get('q');
    if (url.searchParams.get('key') !== key) return googleError(res, 400, 'API key not valid. Please pass a valid API key.', 'badRequest', 'INVALID_ARGUMENT');
    if (url.searchParams.get('cx') !== cx) return googleError(res, 400, 'Request contains an invalid argument.', 'invalid', 'INVALID_ARGUMENT');
    if (!q) return googleError(res, 400, "Required parameter: q", 'required', 'INVALID_ARGUMENT');
    if (self.mode === 'rate-limited') return googleError(res, 429, "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute'.", 'rateLimitExceeded', 'RESOURCE_EXHAUSTED');
    if (self.mode === 'quota') return googleError(res, 403, 'This project has exceeded its daily quota.', 'dailyLimitExceeded', 'PERMISSION_DENIED');
    if (self.mode === 'server-error') return googleError(res, 503, 'The service is currently unavailable.', 'backendError', 'UNAVAILABLE');
    const num = Number(url.searchParams.get('num') ?? 10);
    const start = Number(url.searchParams.get('start') ?? 1);
    if (self.mode === 'empty') return send(res, 200, { kind: 'customsearch#search', searchInformation: { totalResults: '0' } });
    const items = Array.from({ length: num }, (_, i) => ({
      kind: 'customsearch#result',
      title: `Google result ${start + i} for ${q}`,
      link: `https://example.com/google/${start + i}`,
      displayLink: 'example.com',
      snippet: `Snippet ${start + i} about ${q}.`,
    }));
    send(res, 200, { kind: 'customsearch#search', queries: { request: [{ searchTerms: q, startIndex: start }], nextPage: [{ startIndex: start + num }] }, searchInformation: { totalResults: '12300' }, items });
  });
}

/** SerpAPI (engine=google), answering for one key. */
export function serpApiStandIn(key: string): Promise<StandIn> {
  return start((url, res, self) => {
    if (url.pathname !== '/search.json') return send(res, 404, { error: 'Not found.' });
    if (url.searchParams.get('api_key') !== key) return send(res, 401, { error: 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key' });
    if (url.searchParams.get('engine') !== 'google') return send(res, 400, { error: 'Unsupported `engine` search engine.' });
    const q = url.searchParams.get('q');
    if (!q) return send(res, 400, { error: 'Missing query `q` parameter.' });
    if (self.mode === 'rate-limited' || self.mode === 'quota') return send(res, 429, { error: 'Your account has run out of searches.' });
    if (self.mode === 'server-error') return send(res, 500, { error: 'Internal error.' });
    if (self.mode === 'empty') return send(res, 200, { search_metadata: { status: 'Success' }, error: "Google hasn't returned any results for this query." });
    const num = Number(url.searchParams.get('num') ?? 10);
    const offset = Number(url.searchParams.get('start') ?? 0);
    const organic = Array.from({ length: num }, (_, i) => ({
      position: i + 1,
      title: `SerpAPI result ${offset + i + 1} for ${q}`,
      link: `https://example.com/serp/${offset + i + 1}`,
      displayed_link: 'example.com › serp',
      snippet: `Serp snippet ${offset + i + 1} about ${q}.`,
    }));
    send(res, 200, { search_metadata: { status: 'Success' }, search_parameters: { engine: 'google', q }, search_information: { total_results: 4560 }, organic_results: organic, serpapi_pagination: { next: 'https://serpapi.com/search.json?start=10' } });
  });
}
