/**
 * A console page given a query parameter twice that it reads once. The pages
 * read `URLSearchParams.get`, the first value: `/ui/approvals?status=pending&status=denied`
 * showed the pending queue, `/ui/tools/x?persona=a&persona=b` the tool as `a`,
 * the audit page filtered by the first tool or principal, while a proxy's rule,
 * a log or a reviewer reading the link may have taken the last. The API
 * refuses that with 400 BAD_PARAMETER (the route table's check); the console
 * now answers a 400 page naming the parameter, from the same check, and
 * still takes a parameter its API twin repeats (`persona` of the catalog).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repeatedParameters } from '../../../src/server/context.js';
import { identityApi, type IdentityApi } from '../identity-fixture.js';
import { consoleRequests } from './requests.js';

let api: IdentityApi;
beforeAll(async () => {
  api = await identityApi({}, { console: {} });
});
afterAll(async () => api.close());

const { get } = consoleRequests(() => api);
const ADMIN = { authorization: 'Bearer tok-admin' };

describe('the console and a repeated single-valued query parameter', () => {
  it.each([
    ['/ui/approvals?status=pending&status=denied', 'status'],
    ['/ui/approvals?fragment=1&fragment=0', 'fragment'],
    ['/ui/tools/ops.reverse?persona=ops&persona=intern', 'persona'],
    ['/ui/audit?tool=a&tool=b', 'tool'],
    ['/ui/audit?principal=root&principal=other', 'principal'],
    ['/ui/audit?outcome=call.ok&outcome=call.error', 'outcome'],
    ['/ui/audit?call_id=a&call_id=b', 'call_id'],
    ['/ui/audit?after=0&after=5', 'after'],
    ['/ui/audit?from=2030-01-01&from=2020-01-01', 'from'],
    ['/ui/audit?to=2030-01-01&to=2020-01-01', 'to'],
    ['/?q=list+files&q=delete+files', 'q'],
    ['/?mode=read&mode=write', 'mode'],
    ['/?max_risk=low&max_risk=high', 'max_risk'],
    ['/?offset=0&offset=50', 'offset'],
  ])('%s is a 400 page naming %s', async (path, name) => {
    const res = await get(path, ADMIN);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toContain('<h1>Bad request</h1>');
    expect(page).toContain(`${name}: &quot;${name}&quot; may be given once.`);
  });

  it.each([
    ['/ui/approvals?status=denied'],
    ['/ui/tools/ops.reverse?persona=ops'],
    ['/ui/audit?tool=a&principal=b'],
    ['/?mode=read'],
    // /tools and /search take persona repeated: so does the catalog
    ['/?persona=ops&persona=intern'],
  ])('%s is still a page', async (path) => {
    expect((await get(path, ADMIN)).status).toBe(200);
  });

  it('is the API\'s own check', () => {
    expect(repeatedParameters(new URLSearchParams('status=a&status=b&tool=x'), ['status', 'tool'])).toEqual([{ parameter: 'status', message: '"status" may be given once.' }]);
  });
});
