/**
 * What a decision says on the approval queue travels in the URL of the
 * redirect back to it (`/ui/approvals?done=…` or `?error=…`). The page
 * showed any such text as the console's own notice (`role="alert"`), so a
 * link from anywhere put the sender's words in the approver's trusted
 * console ("Your session expired: paste your API key at https://evil…",
 * "Approved: executed"). The message is now sealed with the session's
 * secret form token: the page shows it only when the seal is the one this
 * session's decision made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieValue } from '../../../src/server/console/session.js';
import { identityApi, PRINCIPALS, type IdentityApi } from '../identity-fixture.js';
import { consoleRequests } from './requests.js';

let api: IdentityApi;
beforeAll(async () => {
  api = await identityApi({}, { console: {} });
});
afterAll(async () => api.close());

const { get, post } = consoleRequests(() => api);

async function signIn(token: string): Promise<{ cookie: string; csrf: string }> {
  const form = await get('/ui/login');
  const login = cookieValue(form.headers.get('set-cookie') ?? '', 'toolcap_login')!;
  const res = await post('/ui/login', { csrf: login, credential: token, next: '/' }, { cookie: `toolcap_login=${login}` });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('toolcap_session='))!.split(';')[0]!;
  const page = await (await get('/', { cookie })).text();
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(page)![1]! };
}

const PHISH = 'Your session expired: paste your API key at https://evil.example/login';

describe('the notice after a decision', () => {
  it.each([
    ['done', {}],
    ['error', {}],
    ['error', { sig: 'forged' }],
  ])('is not shown from a link: ?%s=… %o', async (key, extra) => {
    const { cookie } = await signIn('tok-approver');
    const res = await get(`/ui/approvals?${new URLSearchParams({ [key]: PHISH, ...extra })}`, { cookie });
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain('evil.example');
  });

  it('is shown after the session\'s own decision, and not to another session following the same link', async () => {
    const asked = await api.runtime.call('text.reverse', { text: 'abc' }, { principal: PRINCIPALS.intern, persona: 'intern' });
    const id = (asked as { approval: { id: string } }).approval.id;
    const { cookie, csrf } = await signIn('tok-approver');
    const denied = await post(`/ui/approvals/${id}/deny`, { csrf, note: 'no' }, { cookie });
    expect(denied.status).toBe(303);
    const location = denied.headers.get('location')!;
    expect(await (await get(location, { cookie })).text()).toMatch(/<p class="notice" role="status">Denied text\.reverse/);
    const other = await signIn('tok-admin');
    expect(await (await get(location, { cookie: other.cookie })).text()).not.toContain('Denied text.reverse');
  });
});
