/** Query understanding: the classes of misreading issue 13 names, one table each. */
import { describe, expect, it } from 'vitest';
import { words } from '../../src/model/evidence.js';
import { extractEntities, isEntityWord } from '../../src/query/entities.js';
import { matchPhrase } from '../../src/query/phrases.js';
import { tokenize } from '../../src/query/tokenize.js';
import { understand } from '../../src/query/understand.js';
import { canonicalVerbs, participleVerdict } from '../../src/query/verbs.js';

describe('sentence form: questions and lookups read', () => {
  it.each([
    ['which PRs are waiting on my review?', 'read'],
    ["what's on the #general channel today?", 'read'],
    ['is the deploy branch protected?', 'read'],
    ['show me the failing checks', 'read'],
    ['who deleted the release branch?', 'read'],
    ['has PR 301 passed CI yet?', 'read'],
    ['anything new for me on GitHub since yesterday?', 'read'],
    ['the latest release of acme/web', 'read'],
    ['open issues in acme/widgets', 'read'],
    ['could you tell me how many stars the repo has', 'read'],
    ['explore the governance structure of the library network', 'read'],
    ['gather information about the COVID-19 cases in the world', 'read'],
  ])('%s -> %s', (task, intent) => {
    expect(understand(task).intent).toBe(intent);
  });

  it('a question is a read with confidence 0.8; a verb in verb position 0.9', () => {
    expect(understand('which repos do we have?')).toMatchObject({ intent: 'read', confidence: 0.8 });
    expect(understand('list the repos')).toMatchObject({ intent: 'read', confidence: 0.9 });
  });

  it('"explore …" and "gather …" ask for something: their sentences are steps of the task', () => {
    expect(understand('Retrieve the energy sustainability data. Then, explore the library network governance. Finally, search the museum catalogue.').sentences).toHaveLength(3);
    expect(understand('I want to gather information about the flu cases. Then, check the subway schedule.').sentences).toHaveLength(2);
  });

  it('a request in question form is a request', () => {
    expect(understand('can you delete the stale branch?').intent).toBe('write');
    expect(understand('could you create an issue for this?').intent).toBe('write');
  });
});

describe('the same word as verb, adjective or noun', () => {
  it.each([
    ['open an issue for the login bug', 'write'],
    ['open issues about login', 'read'],
    ['commit this', 'write'],
    ['the latest commit on main', 'read'],
    ['file a bug about the crash', 'write'],
    ['post to #eng that the build is green', 'write'],
    ['new issue: the button does nothing', 'write'],
    ['show the closed pull requests', 'read'],
  ])('%s -> %s', (task, intent) => {
    expect(understand(task).intent).toBe(intent);
  });
});

describe('phrasal verbs', () => {
  it.each([
    ['get rid of the stale branch', 'write', true],
    ['let the team know the build is fixed', 'write', false],
    ['let the reporter on issue 77 know a fix is coming', 'write', false],
    ['look up the user with that email', 'read', false],
    ['bring back the archived channel', 'write', false],
    ['set up a webhook for pushes', 'write', false],
  ])('%s -> %s (destroys: %s)', (task, intent, destroys) => {
    expect(understand(task)).toMatchObject({ intent, destroys });
  });

  it('matches the longest phrase, with up to six object words under *', () => {
    expect(matchPhrase(['let', 'me', 'know'], 0)?.says).toBe('read');
    expect(matchPhrase(['let', 'the', 'whole', 'team', 'know'], 0)?.says).toBe('write');
    expect(matchPhrase(['let', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'know'], 0)).toBeUndefined();
  });
});

describe('negation and subordinate clauses', () => {
  it("don't delete it, just archive it: a write that rules delete out", () => {
    const u = understand("don't delete #old-project, just archive it");
    expect(u).toMatchObject({ intent: 'write', destroys: false });
    expect(u.avoid).toContain(tokenize('delete')[0]);
  });

  it('an -ing verb after before/after/without is not the point', () => {
    expect(understand('view the branch before deleting it')).toMatchObject({ intent: 'read', destroys: false });
  });

  it('a read then a write is a write', () => {
    expect(understand('find the stale branches and delete them')).toMatchObject({ intent: 'write', destroys: true });
  });
});

describe('list versus item', () => {
  it.each([
    ['which repos do we have?', 'list'],
    ['show all open pull requests', 'list'],
    ['how many issues are open', 'list'],
    ['show me issue 4512', 'item'],
    ['close #4512', 'item'],
    ["what's in /etc/hosts?", 'item'],
    ['the latest release', 'unknown'],
  ])('%s -> %s', (task, scope) => {
    expect(understand(task).scope).toBe(scope);
  });
});

describe('values kept out of the terms', () => {
  it.each([
    ['close #4512', 'id', '#4512'],
    ["what's in /etc/hosts?", 'path', '/etc/hosts'],
    ['who is on call 2024-05-01?', 'date', '2024-05-01'],
    ['fetch https://example.com/a?b=1', 'url', 'https://example.com/a?b=1'],
    ['refund ch_3Ls9XkLkdIwHu7ix0', 'id', 'ch_3Ls9XkLkdIwHu7ix0'],
    ['issues in acme/widgets', 'slug', 'acme/widgets'],
    ['send it to @alice', 'handle', '@alice'],
    ['rename it to "Q3 plan"', 'quoted', '"Q3 plan"'],
    ['is phishy-login.biz safe?', 'domain', 'phishy-login.biz'],
  ])('%s: %s %s', (task, kind, text) => {
    expect(extractEntities(task).entities).toContainEqual({ kind, text });
    const u = understand(task);
    expect(tokenize(u.content).join(' ')).not.toMatch(/\d{3}/);
  });

  it('lists the entities in the order they appear, whichever pattern found them', () => {
    expect(extractEntities('runs 1 2 3 4 5 for XOVtFd5vEhpQrS and ABC-123-x').entities.map((e) => e.text)).toEqual(['1', '2', '3', '4', '5', 'XOVtFd5vEhpQrS', 'ABC-123-x']);
  });

  it('a kind may add its word at the weak weight (a path is about files)', () => {
    expect(understand("what's in /etc/hosts?").weak.split(' ')).toContain('file');
    expect(understand("what's in /etc/hosts?").content).not.toContain('etc');
  });

  it('contractions leave no fragments; numbers and single letters are not terms', () => {
    expect(tokenize("what's wrong, don't we've it's PR 4512 v2")).toEqual(['wrong', 'pr', 'v2']);
  });
});

describe('entities in linear time', () => {
  // a pattern started at every word boundary inside a long run of its characters ("x-x-x-…", "a.a.a.…@") and scanned
  // the rest of the run from each: quadratic. Under 1,000 characters (the HTTP cap) a few ms; 64 KB of one of these
  // shapes took 1 to 13 s in rankTools, whose callers (a library's) have no cap. Now each run is scanned from its first
  // start only: a few ms
  const SIZE = 64_000;
  it.each([
    ['x-', ''], ['x-1', ''], ['a1-', ''], ['a.', ''], ['ab12-', ''], ['2024-01-01T', ''], ['.2', ''], ['1.2.3-', ''], ['1.', ''],
    ['a-', '.com'], ['a.', 'com'], ['a.', '@'], ['.a', '@a.'], ['a.', '/!'], ['a-', '/'], ['@a.', ''], ['www.a', ''],
    ['x--', ''], ['x_-', '1'], ['a.pdf-', ''], ['_a.', 'com'], ['_a.', '/'], ['_a-', '.com'], ['-a.', ''], ['a.-', 'com'], ['#1-', 'a'], ['a_', '-1'],
  ])('%j repeated, then %j', (unit, tail) => {
    const task = unit.repeat(Math.ceil(SIZE / unit.length)) + tail;
    const started = performance.now();
    extractEntities(task);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('a long task', () => {
  // a write's evidence took the reads' as the arguments of one push: over about 120,000 read clauses (a library
  // caller's task, which has no cap) a RangeError, the call stack's size
  it('160,000 questions after a write: the evidence lists them all, not a stack overflow', () => {
    const u = understand(`delete it. ${'a?'.repeat(160_000)}`);
    expect(u.intent).toBe('write');
    expect(u.evidence).toHaveLength(160_001);
  });
});

describe("the entity reader's marks and stand-ins, written in a task", () => {
  // an entity was marked by lowercase letters ("zqeaqz": entity 0) and stands in the text as a word ("zqidzq"): a task
  // writing a mark of no entity threw (an HTTP 500, an MCP internal error), one writing another's listed it twice,
  // and a stand-in of its own took the place of the next entity
  it.each([
    ['zqeaqz', []],
    ['close #1 zqeaqz', ['#1']],
    ['close #1 zqebqz and #2', ['#1', '#2']],
    ['zqidzq zqnumberzq 7', ['7']],
    ['ZQ fooZQbarZQ zq Zqidzq 7', ['7']],
    ['\uE000a\uE001 close #1', ['#1']],
  ])('%j lists the entities it holds, once: %j', (task, texts) => {
    const { text, entities } = extractEntities(task);
    expect(entities.map((e) => e.text)).toEqual(texts);
    // every stand-in in the text is one of them
    expect(words(text).filter(isEntityWord)).toHaveLength(texts.length);
    expect(() => understand(task)).not.toThrow();
  });

  it("a stand-in written by the task does not take the next entity's place", () => {
    expect(understand('list issues. zqnumberzq? show issue 4512. get repo 7').sentences).toEqual(
      expect.arrayContaining([{ content: 'issue', values: ['4512'] }, { content: 'repo', values: ['7'] }]),
    );
  });

  it('a word with "zq" that reads as no stand-in is left as it is', () => {
    expect(extractEntities('show lazq and 6gnuuPDezqVB').text).toBe('show lazq and 6gnuuPDezqVB');
  });
});

describe('verb families and participles', () => {
  it.each([
    ['open', 'an', ['create']],
    ['start', 'a', ['create']],
    ['remove', 'the', ['delete', 'remove']],
    ['get rid of', 'the', ['delete', 'remove']],
    ['bring back', 'the', ['restore', 'unarchive']],
    ['frobnicate', 'the', []],
  ])('%s %s -> %j', (verb, next, canonical) => {
    expect(canonicalVerbs(verb, next)).toEqual(canonical);
  });

  it('participles of writes describe the object, so they match weakly', () => {
    expect(participleVerdict('archived')).toBe('write');
    expect(participleVerdict('posted')).toBe('write');
    const u = understand('get rid of the message I just posted by mistake');
    expect(u.weak.split(' ')).toContain('posted');
    expect(u.content.split(' ')).not.toContain('posted');
  });
});

describe('confidence', () => {
  it('unknown has confidence 0; a lone write word elsewhere is weak evidence', () => {
    expect(understand('calendar')).toMatchObject({ intent: 'unknown', confidence: 0 });
    expect(understand('branch that needs a merge').confidence).toBeLessThan(0.6);
    expect(understand('the branch that needs a merge')).toMatchObject({ intent: 'read', confidence: 0.5 });
  });

  it('is deterministic', () => {
    const task = "don't delete the #old channel; archive it and let the team know by 5pm";
    expect(understand(task)).toEqual(understand(task));
  });

  it('survives hostile input quickly: long, odd and nested text', () => {
    const long = `${'please '.repeat(2000)}delete ${'a '.repeat(20000)}thing?`;
    expect(understand(long).intent).toBe('write');
    expect(understand('"""```///###@@@???').intent).toBe('unknown');
    expect(understand('').intent).toBe('unknown');
  });
});
