/**
 * The two web-search engines, as their public API documentation describes
 * them: which query parameters a search sends, where the hits are in the
 * answer, and whose fault an error answer is.
 *
 * - Google Custom Search JSON API:
 *   `GET https://www.googleapis.com/customsearch/v1?key=&cx=&q=&num=&start=`
 *   answers `{ items: [{ title, link, snippet, displayLink }], searchInformation: { totalResults }, queries: { nextPage } }`,
 *   errors `{ error: { code, message, errors: [{ reason }] } }`. `num` is 1-10.
 * - SerpAPI: `GET https://serpapi.com/search.json?engine=google&q=&api_key=&num=&start=`
 *   answers `{ organic_results: [{ position, title, link, snippet, displayed_link }], search_information: { total_results } }`,
 *   errors `{ error: "..." }`. Its `start` is a 0-based offset.
 * @module
 */
import type { ProviderFault } from './types.js';

/** A search as the engines take it: `start` is the 1-based rank of the first hit. */
export interface SearchInput {
  query: string;
  num: number;
  start: number;
  /** Engine-specific pass-through parameters (`gl`, `hl`, ...). */
  extra: Record<string, string>;
}

/** One credential query parameter and where its value comes from. */
export interface CredentialParam {
  /** The query parameter (`key`, `cx`, `api_key`). */
  query: string;
  /** Config keys naming the variable, first wins. */
  configKeys: readonly string[];
  /** A declared `auth.envs` name matching this is used when config names none. */
  declared: RegExp;
  /** The variable when neither config nor the manifest names one. */
  fallback: string;
  /** A config key that may hold the value itself (not a secret: the CSE id). */
  literal?: string;
}

/** What an engine's answer held. */
export type EngineAnswer = { results: Array<{ title: string; link: string; snippet: string; displayLink?: string }>; totalResults?: number; more: boolean } | { error: string };

/** One engine. */
export interface SearchEngine {
  type: string;
  /** How messages name it. */
  title: string;
  /** The API's origin. */
  baseUrl: string;
  path: string;
  /** Credentials, the API key first. */
  credentials: readonly CredentialParam[];
  maxNum: number;
  passThrough: readonly string[];
  /** The query parameters of a search (credentials aside). */
  query(input: SearchInput): Record<string, string | number>;
  /** Read a 2xx answer. */
  read(body: unknown): EngineAnswer;
  /** Whose fault an error answer is, and the API's own words for it, whole (the provider redacts, then cuts them). */
  classify(status: number, body: unknown): { message: string; fault: ProviderFault };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Rate limits and server errors are the provider's; so are refusals of its own credentials, quota or plan. */
function faultOf(status: number, credentialOrQuota: boolean): ProviderFault {
  if (status === 408 || status === 425 || status === 429 || status >= 500) return 'provider';
  if (status === 401 || status === 403 || credentialOrQuota) return 'provider';
  return status >= 400 && status < 500 ? 'caller' : 'provider';
}

/** Hits from an array of `{ title, link, snippet }`; entries without a link are left out. */
function hits(list: unknown, displayKey: string): Array<{ title: string; link: string; snippet: string; displayLink?: string }> {
  if (!Array.isArray(list)) return [];
  const out = [];
  for (const item of list) {
    if (!isObject(item) || typeof item['link'] !== 'string') continue;
    const display = item[displayKey];
    out.push({ title: text(item['title']), link: item['link'], snippet: text(item['snippet']), ...(typeof display === 'string' ? { displayLink: display } : {}) });
  }
  return out;
}

const GOOGLE_QUOTA = /quota|rate ?limit|dailyLimit|keyInvalid|keyExpired|API key|accessNotConfigured|billing/i;

const googleCse: SearchEngine = {
  type: 'google_cse',
  title: 'Google Custom Search',
  baseUrl: 'https://www.googleapis.com',
  path: '/customsearch/v1',
  credentials: [
    { query: 'key', configKeys: ['api_key_env', 'apiKeyEnv'], declared: /^GOOGLE.*(API_KEY|KEY)$/, fallback: 'GOOGLE_API_KEY' },
    { query: 'cx', configKeys: ['cx_env', 'cse_id_env', 'cxEnv', 'cseIdEnv'], declared: /(CSE|SEARCH_ENGINE)_?(ID|CX)$|_CX$/, fallback: 'GOOGLE_CSE_ID', literal: 'cx' },
  ],
  maxNum: 10,
  passThrough: ['gl', 'hl', 'lr', 'cr', 'safe', 'siteSearch', 'dateRestrict'],
  query: ({ query, num, start, extra }) => ({ q: query, num, ...(start > 1 ? { start } : {}), ...extra }),
  read(body) {
    if (!isObject(body)) return { error: 'the answer is not a JSON object' };
    const info = body['searchInformation'];
    const total = isObject(info) ? Number(info['totalResults']) : Number.NaN;
    const queries = body['queries'];
    const more = isObject(queries) && Array.isArray(queries['nextPage']) && queries['nextPage'].length > 0;
    return { results: hits(body['items'], 'displayLink'), ...(Number.isFinite(total) ? { totalResults: total } : {}), more };
  },
  classify(status, body) {
    const error = isObject(body) && isObject(body['error']) ? body['error'] : undefined;
    const reasons = Array.isArray(error?.['errors']) ? error['errors'].map((e) => (isObject(e) ? text(e['reason']) : '')).join(' ') : '';
    const message = text(error?.['message']) || (typeof body === 'string' ? body : 'no error message');
    return { message, fault: faultOf(status, GOOGLE_QUOTA.test(`${reasons} ${text(error?.['status'])} ${message}`)) };
  },
};

const SERPAPI_ACCOUNT = /api key|api_key|run out of searches|searches per|plan|account|rate limit/i;

const serpApi: SearchEngine = {
  type: 'serpapi',
  title: 'SerpAPI',
  baseUrl: 'https://serpapi.com',
  path: '/search.json',
  credentials: [{ query: 'api_key', configKeys: ['api_key_env', 'apiKeyEnv'], declared: /^SERP_?API.*KEY$/, fallback: 'SERPAPI_KEY' }],
  maxNum: 100,
  passThrough: ['gl', 'hl', 'location', 'safe', 'google_domain'],
  query: ({ query, num, start, extra }) => ({ engine: 'google', q: query, num, ...(start > 1 ? { start: start - 1 } : {}), ...extra }),
  read(body) {
    if (!isObject(body)) return { error: 'the answer is not a JSON object' };
    const results = hits(body['organic_results'], 'displayed_link');
    const error = text(body['error']);
    // SerpAPI answers 200 with an error when Google found nothing: that is an empty result, not a failure
    if (error !== '' && results.length === 0 && !/hasn't returned any results|no results/i.test(error)) return { error };
    const info = body['search_information'];
    const total = isObject(info) ? Number(info['total_results']) : Number.NaN;
    const pagination = body['serpapi_pagination'] ?? body['pagination'];
    const more = isObject(pagination) && typeof pagination['next'] === 'string';
    return { results, ...(Number.isFinite(total) ? { totalResults: total } : {}), more };
  },
  classify(status, body) {
    const message = (isObject(body) ? text(body['error']) : typeof body === 'string' ? body : '') || 'no error message';
    return { message, fault: faultOf(status, SERPAPI_ACCOUNT.test(message)) };
  },
};

/** The engines by provider type name. */
export const ENGINES: Readonly<Record<string, SearchEngine>> = { google_cse: googleCse, serpapi: serpApi };
