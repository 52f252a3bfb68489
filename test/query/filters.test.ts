import { describe, expect, it } from 'vitest';
import { filterTools, type HealthLookup, type ToolFilter } from '../../src/query/filters.js';
import { parseFilter } from '../../src/query/params.js';
import { FIXTURE } from './fixture.js';

const keys = (filter: ToolFilter, health?: HealthLookup) =>
  filterTools(FIXTURE, filter, health ? { health } : {}).tools.map((t) => t.key);

describe('filterTools', () => {
  it.each<[string, ToolFilter, string[]]>([
    ['no filter: everything, by name then key', {}, [
      'calendar.create_event', 'calendar.create_event@Atlas', 'calendar.list_events', 'github.create_pull_request',
      'github.delete_branch', 'github.diff_branch', 'shell.run', 'tasks.linear.assigned@Researcher', 'web.search',
    ]],
    ['persona: shared tools plus its own, its own version shadowing', { personas: ['Atlas'] }, [
      'calendar.create_event@Atlas', 'calendar.list_events', 'github.create_pull_request', 'github.delete_branch',
      'github.diff_branch', 'shell.run', 'web.search',
    ]],
    ['persona with -shared: only its own', { personas: ['Atlas', '-shared'] }, ['calendar.create_event@Atlas']],
    ['two personas', { personas: ['Atlas', 'Researcher', '-shared'] }, ['calendar.create_event@Atlas', 'tasks.linear.assigned@Researcher']],
    ['provider', { provider: 'google' }, ['calendar.create_event', 'calendar.list_events']],
    ['version range; "latest" is not semver and never matches', { version: '>=2.0' }, [
      'calendar.create_event', 'calendar.create_event@Atlas', 'calendar.list_events', 'shell.run',
    ]],
    ['side effects at most read_external_service', { sideEffects: 'read_external_service' }, [
      'calendar.list_events', 'github.diff_branch', 'tasks.linear.assigned@Researcher',
    ]],
    ['mode', { mode: 'read' }, ['calendar.list_events', 'github.diff_branch', 'tasks.linear.assigned@Researcher', 'web.search']],
    ['max risk', { maxRisk: 'low' }, ['calendar.list_events', 'github.diff_branch', 'tasks.linear.assigned@Researcher', 'web.search']],
    ['tag', { tag: 'web' }, ['web.search']],
    ['domain and operation', { domain: 'tasks', operation: 'list' }, ['calendar.list_events', 'tasks.linear.assigned@Researcher']],
    ['capability exact', { capability: 'tasks.probe' }, ['tasks.linear.assigned@Researcher']],
    ['capability prefix', { capability: 'code.branch.*' }, ['github.delete_branch', 'github.diff_branch']],
    ['approval required', { approval: true }, [
      'calendar.create_event', 'github.create_pull_request', 'github.delete_branch', 'shell.run',
    ]],
    ['enabled false', { enabled: false }, ['shell.run']],
    ['filters combine', { mode: 'write', approval: false }, ['calendar.create_event@Atlas']],
  ])('%s', (_label, filter, expected) => {
    expect(keys(filter)).toEqual(expected);
  });

  it('min success rate: measured tools below it drop out; unmeasured ones pass, flagged unknown', () => {
    const health: HealthLookup = (name) => ({ 'web.search': { successRate: 0.5 }, 'github.diff_branch': { successRate: 0.99 } })[name];
    const result = filterTools(FIXTURE, { minSuccessRate: 0.8, mode: 'read' }, { health });
    expect(result.tools.map((t) => [t.key, t.health])).toEqual([
      ['calendar.list_events', 'unknown'],
      ['github.diff_branch', { successRate: 0.99 }],
      ['tasks.linear.assigned@Researcher', 'unknown'],
    ]);
  });

  it('accepts catalog entries and keeps their keys', () => {
    const entries = FIXTURE.map((value, i) => ({ key: `k${i}`, value }));
    expect(filterTools(entries, { tag: 'web' }).tools.map((t) => t.key)).toEqual(['k6']);
  });

  it('pages with a cursor and with an offset, the same pages either way', () => {
    const all = keys({});
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = filterTools(FIXTURE, { limit: 4, ...(cursor === undefined ? {} : { cursor }) });
      expect(page.total).toBe(all.length);
      seen.push(...page.tools.map((t) => t.key));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toEqual(all);
    expect(filterTools(FIXTURE, { limit: 4, offset: 4 }).tools.map((t) => t.key)).toEqual(all.slice(4, 8));
    expect(filterTools(FIXTURE, { limit: 100 }).nextCursor).toBeUndefined();
  });
});

describe('parseFilter', () => {
  it('reads every parameter', () => {
    const params = new URLSearchParams(
      'persona=Atlas&persona=-shared&provider=openai&version=>=1.2&min_success_rate=0.8&side_effects=network&mode=read' +
        '&max_risk=medium&tag=web&domain=tasks&operation=list&capability=tasks.*&approval=false&enabled=true&limit=20&offset=40',
    );
    expect(parseFilter(params)).toEqual({
      filter: {
        personas: ['Atlas', '-shared'], provider: 'openai', version: '>=1.2', minSuccessRate: 0.8, sideEffects: 'network', mode: 'read',
        maxRisk: 'medium', tag: 'web', domain: 'tasks', operation: 'list', capability: 'tasks.*', approval: false, enabled: true, limit: 20, offset: 40,
      },
    });
  });

  it('a cursor it returned parses back', () => {
    const cursor = filterTools(FIXTURE, { limit: 2 }).nextCursor ?? '';
    expect(parseFilter(new URLSearchParams({ cursor }))).toEqual({ filter: { cursor } });
  });

  it.each([
    ['max_risk=extreme', ['max_risk']],
    ['side_effects=loud', ['side_effects']],
    ['mode=sometimes', ['mode']],
    ['version=banana', ['version']],
    ['min_success_rate=1.5', ['min_success_rate']],
    ['min_success_rate=', ['min_success_rate']],
    ['approval=yes', ['approval']],
    ['enabled=1', ['enabled']],
    ['limit=0', ['limit']],
    ['limit=5000', ['limit']],
    ['offset=-1', ['offset']],
    ['cursor=nope', ['cursor']],
    ['capability=Tasks', ['capability']],
    ['domain=cooking', ['domain']],
    ['operation=explode', ['operation']],
    ['persona=-shared', ['persona']],
    ['persona=', ['persona']],
    ['mode=read&mode=write', ['mode']],
    ['colour=red', ['colour']],
    ['max_risk=extreme&limit=x&tag=web', ['max_risk', 'limit']],
  ])('%s -> problems with %j', (query, parameters) => {
    const result = parseFilter(new URLSearchParams(query));
    expect('problems' in result ? result.problems.map((p) => p.parameter).sort() : []).toEqual([...parameters].sort());
  });

  it('offset and cursor together are a problem', () => {
    const cursor = filterTools(FIXTURE, { limit: 2 }).nextCursor ?? '';
    const result = parseFilter(new URLSearchParams({ cursor, offset: '2' }));
    expect(result).toMatchObject({ problems: [{ parameter: 'offset' }] });
  });

  it('parameters the caller handles itself are allowed', () => {
    expect(parseFilter(new URLSearchParams('q=diff&mode=read'), { allow: ['q'] })).toEqual({ filter: { mode: 'read' } });
  });
});
