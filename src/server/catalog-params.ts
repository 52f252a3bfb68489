/**
 * The query parameters of the catalog reads that are not the `/tools`
 * filters (those are `query/params.ts`): one persona, and `/search`'s own.
 * Every bad parameter is collected and answered at once (400 BAD_PARAMETER).
 * @module
 */
import { isMember } from '../model/vocabulary.js';
import { parseFilter, type ParameterProblem } from '../query/params.js';
import type { ToolFilter } from '../query/filters.js';
import { badParameters } from './problem.js';

/** Longest `q` accepted by /search, in characters. */
export const MAX_QUERY_LENGTH = 1000;
/** Most candidates /search returns. */
export const MAX_SEARCH_LIMIT = 100;

/** One persona, or none; a second one, an empty one or any other parameter is a 400. */
export function onePersona(params: URLSearchParams): string | undefined {
  const problems: ParameterProblem[] = [];
  for (const name of new Set(params.keys())) {
    if (name !== 'persona') problems.push({ parameter: name, message: `Unknown parameter "${name}". Known: persona.` });
  }
  const personas = params.getAll('persona');
  if (personas.length > 1) problems.push({ parameter: 'persona', message: '"persona" may be given once here.' });
  if (personas[0] === '') problems.push({ parameter: 'persona', message: 'The persona is empty.' });
  if (problems.length > 0) throw badParameters(problems);
  return personas[0];
}

/** `/search`'s own parameters. */
export interface SearchParams {
  q: string;
  limit: number;
  explain: boolean;
  intent?: 'read' | 'write' | 'unknown';
  taskRisk?: number;
}

const SEARCH_OWN = ['q', 'explain', 'intent', 'task_risk'] as const;

/** `/search` parameters: its own, plus the `/tools` filters (paging aside). */
export function parseSearch(params: URLSearchParams): { search: SearchParams; filter: ToolFilter } {
  const problems: ParameterProblem[] = [];
  const own = new URLSearchParams();
  const rest = new URLSearchParams();
  for (const [k, v] of params) ((SEARCH_OWN as readonly string[]).includes(k) || k === 'limit' ? own : rest).append(k, v);
  for (const k of new Set(own.keys())) if (own.getAll(k).length > 1) problems.push({ parameter: k, message: `"${k}" may be given once.` });
  for (const k of ['cursor', 'offset']) if (rest.has(k)) problems.push({ parameter: k, message: `/search returns one ranked list; "${k}" is for /tools.` });
  rest.delete('cursor');
  rest.delete('offset');
  const q = own.get('q');
  if (q === null || q.trim() === '') problems.push({ parameter: 'q', message: 'Say what the task is: q=<words>.' });
  else if (q.length > MAX_QUERY_LENGTH) problems.push({ parameter: 'q', message: `The query is ${q.length} characters; at most ${MAX_QUERY_LENGTH}.` });
  const search: SearchParams = { q: q ?? '', limit: 10, explain: false };
  const limit = own.get('limit');
  if (limit !== null) {
    const n = /^\d+$/.test(limit) ? Number(limit) : Number.NaN;
    if (n >= 1 && n <= MAX_SEARCH_LIMIT) search.limit = n;
    else problems.push({ parameter: 'limit', message: `"${limit}" is not a whole number from 1 to ${MAX_SEARCH_LIMIT}.` });
  }
  const explain = own.get('explain');
  if (explain !== null) {
    if (explain === '1' || explain === 'true' || explain === '') search.explain = true;
    else if (explain !== '0' && explain !== 'false') problems.push({ parameter: 'explain', message: `"${explain}" is not 1, 0, true or false.` });
  }
  const intent = own.get('intent');
  if (intent !== null) {
    if (isMember(['read', 'write', 'unknown'] as const, intent)) search.intent = intent;
    else problems.push({ parameter: 'intent', message: `"${intent}" is not one of read, write, unknown.` });
  }
  const risk = own.get('task_risk');
  if (risk !== null) {
    const n = risk.trim() === '' ? Number.NaN : Number(risk);
    if (n >= 0 && n <= 10) search.taskRisk = n;
    else problems.push({ parameter: 'task_risk', message: `"${risk}" is not a number from 0 to 10.` });
  }
  const parsed = parseFilter(rest);
  if ('problems' in parsed) problems.push(...parsed.problems);
  if (problems.length > 0) throw badParameters(problems);
  return { search, filter: 'filter' in parsed ? parsed.filter : {} };
}
