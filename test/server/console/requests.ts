/**
 * Requests to the console of an identity-fixture API, as a browser on the
 * allowed origin sends them: GETs, and form POSTs with the Origin header.
 */
import { BASE } from '../helpers.js';
import { HOST, ORIGIN, type IdentityApi } from '../identity-fixture.js';

export function consoleRequests(api: () => IdentityApi) {
  return {
    get: (path: string, headers: Record<string, string> = {}) => api().app.fetch(new Request(`${BASE}${path}`, { headers: { host: HOST, ...headers } })),
    post: (path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
      api().app.fetch(new Request(`${BASE}${path}`, { method: 'POST', body: new URLSearchParams(form), headers: { host: HOST, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded', ...headers } })),
  };
}
