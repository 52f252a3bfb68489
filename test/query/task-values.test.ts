/**
 * What a task's verbs and numbers still match after query understanding
 * takes them apart: a create verb that means only itself ("add", "submit")
 * is matched as itself, and a task's numbers are matched against parameter
 * text, where they are example values, and nowhere else; an id written as one
 * word ("224x224x3") is matched where a tool the words matched spells it out; a slug's words
 * ("shadcn/ui") are matched weakly, as quoted names are; a question mark
 * asks about its sentence's first clause only.
 */
import { describe, expect, it } from 'vitest';
import { complete } from '../../src/model/derive.js';
import { entityWords, extractEntities } from '../../src/query/entities.js';
import { rankTools } from '../../src/query/rank.js';
import { buildSearchIndex } from '../../src/query/search.js';
import { numberTerms } from '../../src/query/tokenize.js';
import { understand } from '../../src/query/understand.js';

const tool = (name: string, description: string, params: Record<string, string> = {}) =>
  complete({ name, description, inputSchema: { type: 'object', properties: Object.fromEntries(Object.entries(params).map(([k, d]) => [k, { description: d }])) } });
const top = (task: string, tools: ReturnType<typeof tool>[]) => rankTools(task, tools, { limit: 5 }).candidates.map((c) => c.tool.name);

describe('a create verb that means only itself is matched as itself', () => {
  it.each([
    ['add a DNS record to the zone', 'add'],
    ['submit a new support ticket', 'submit'],
  ])('%s keeps "%s" in the content', (task, verb) => {
    expect(understand(task).content.split(' ')).toContain(verb);
  });

  it('a verb with another meaning is still replaced by "create" ("open an issue", "start a branch")', () => {
    expect(understand('open an issue about the crash').content.split(' ')).not.toContain('open');
    expect(understand('open an issue about the crash').content.split(' ')).toContain('create');
    expect(understand('start a branch for the fix').content.split(' ')).not.toContain('start');
  });

  it('the tool named after the task\'s own verb beats one named after its family\'s', () => {
    const tools = [tool('createDNSRecord', 'Create a DNS record in a zone'), tool('addDNSRecord', 'Add a DNS record to a zone')];
    expect(top('Add an MX record to the DNS zone', tools)[0]).toBe('addDNSRecord');
    const tickets = [tool('createSupportTicket', 'Create a new support ticket'), tool('submitTicket', 'Submit a support ticket')];
    expect(top('Please submit a new support ticket for the network issue', tickets)[0]).toBe('submitTicket');
  });
});

describe("a task's numbers are matched only against parameter text", () => {
  it('numberTerms splits as the tokenizer does and drops all-zero parts', () => {
    expect(numberTerms('year (e.g., 2020, 2025) of 10,000 people at 3')).toEqual(['2020', '2025', '10', '3']);
  });

  it('the index holds a parameter description\'s numbers, not a name\'s or a description\'s', () => {
    const index = buildSearchIndex([tool('v4512', 'Report for 1999', { year: 'The year (e.g., 2025)' })]);
    expect(index.postings.has('2025')).toBe(true);
    expect(index.postings.has('4512')).toBe(false);
    expect(index.postings.has('1999')).toBe(false);
  });

  it('understanding keeps the numbers apart, out of the content', () => {
    const u = understand('energy sustainability for the year 2025 at difficulty 3');
    expect(u.values).toEqual(['2025', '3']);
    expect(u.content).not.toMatch(/\d/);
  });

  it('a number given as an example value lifts its tool over an equal match', () => {
    const tools = [tool('energyReport', 'Energy report', { year: 'The year (e.g., 1990)' }), tool('energyTotals', 'Energy totals', { year: 'The year (e.g., 2025)' })];
    const ranking = rankTools('energy for the year 2025', tools, { limit: 5 });
    expect(ranking.candidates[0]?.tool.name).toBe('energyTotals');
    expect(ranking.candidates[0]?.matched).toContain('2025');
  });

  it('a number alone brings no tool', () => {
    const tools = [tool('energyReport', 'Energy report'), tool('levelPicker', 'Pick a level', { level: 'The level (e.g., 1, 2, 3)' })];
    expect(top('energy at level 3', tools)).toContain('levelPicker');
    expect(top('energy 3', tools)).toEqual(['energyReport']);
  });
});

describe('an id written as one word is matched where the catalog spells it out', () => {
  it('understanding keeps it among the values, not an id of parts or humps, nor a bare "#" number', () => {
    expect(understand('a feature vector from a 224x224x3 image').values).toEqual(['224x224x3']);
    expect(understand('support for product code PRD1234').values).toEqual(['prd1234']);
    expect(understand('the book TsSgpTH1lU, incident INC-4512, and #4512').values).toEqual([]);
  });

  it('it lifts the tool that says it over an equal match', () => {
    const tools = [tool('vector_a', 'Image feature vector. Input images of size 299x299x3.'), tool('vector_b', 'Image feature vector. Input images of size 224x224x3.')];
    const ranking = rankTools('a feature vector from a 224x224x3 image', tools, { limit: 5 });
    expect(ranking.candidates[0]?.tool.name).toBe('vector_b');
    expect(ranking.candidates[0]?.matched).toContain('224x224x3');
  });

  it('an id alone brings no tool', () => {
    const tools = [tool('productSupport', 'Product support', { code: 'Product code (e.g., PRD1234)' }), tool('bookDetails', 'Book details')];
    expect(top('book details for PRD1234', tools)).toEqual(['bookDetails']);
  });
});

describe("a slug's words are matched weakly", () => {
  it('understanding puts them among the weak words, not the content', () => {
    const u = understand('show me the components of shadcn/ui');
    expect(u.weak.split(' ')).toEqual(expect.arrayContaining(['shadcn', 'ui']));
    expect(u.content.split(' ')).not.toContain('shadcn');
  });

  it('they decide between two tools that match the rest equally', () => {
    const tools = [tool('list_components', 'List the components of a library'), tool('list_shadcn_components', 'List the components of a shadcn library')];
    expect(top('show me the components of shadcn/ui', tools)[0]).toBe('list_shadcn_components');
  });
});

describe("a question mark asks about its sentence's first clause", () => {
  it('a later clause in verb position is a request', () => {
    const u = understand('What are the emerging treatments for the disease, write the report to /root/markdown/report.md?');
    expect(u.intent).toBe('write');
    expect(u.evidence).toContain('verb: "write"');
  });

  it('the first clause is still a question', () => {
    expect(understand('which branches are stale, and who owns them?').intent).toBe('read');
  });
});

describe("a file's extension says its format", () => {
  it('entityWords gives the format of a path or file name, never its folders or name', () => {
    expect(entityWords(extractEntities('save it to /root/work/sales_q3.xlsx and notes.md').entities)).toEqual(['excel spreadsheet', 'markdown']);
    expect(entityWords(extractEntities('read /etc/hosts').entities)).toEqual([]);
  });

  it('the format decides between two tools that match the rest equally', () => {
    const tools = [tool('write_csv', 'Write a table to a CSV file'), tool('write_sheet', 'Write a table to an Excel file')];
    expect(top('write the table to /root/out/sales.xlsx', tools)[0]).toBe('write_sheet');
  });
});

describe("an id made of parts names a thing by its word", () => {
  it('"COVID-19" matches as "covid" at full weight; its number and a uuid or random id do not', () => {
    const u = understand('gather the COVID-19 cases for ticket 6f1c2a3b-1111-2222-3333-444455556666 and gDigAX6tNT');
    expect(u.content.split(' ')).toContain('COVID');
    expect(u.content).not.toMatch(/19|6f1c|gDig/);
  });

  it('the tool named after it comes first', () => {
    const tools = [tool('getAnyCases', 'Get the number of flu cases'), tool('getCOVIDCases', 'Get the number of COVID cases')];
    expect(top('how many COVID-19 cases were there?', tools)[0]).toBe('getCOVIDCases');
  });
});
