/**
 * Two ranking rules for real catalog shapes: toolkit prefixes in catalogs
 * flattened from toolkits (ToolEmu's 330 tools, `<toolkit>_<tool>`), whose
 * words must not be read as the tool's verb, and multi-step tasks, where
 * each asking sentence's best tool is lifted (Seal-Tools' tasks).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { complete } from '../../src/model/derive.js';
import type { Tool } from '../../src/model/schema.js';
import { rankTools, STEP_BEST_BONUS, STEP_BEST_MIN_SENTENCES, STEP_FIT } from '../../src/query/rank.js';
import { toolkitPrefixes, toolSignals } from '../../src/query/tool-signals.js';
import { understand } from '../../src/query/understand.js';

const CORPUS = new URL('../../../shared/corpus/', import.meta.url).pathname;
const snake = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2').toLowerCase();

/** ToolEmu's toolkits as one silent catalog: `<toolkit>_<tool>`, no effects declared (as bench/catalogs.mjs loads it). */
const toolemu: Tool[] = (JSON.parse(readFileSync(`${CORPUS}toolemu/all_toolkits.json`, 'utf8')) as Array<{ toolkit: string; name_for_model: string; tools: Array<{ name: string; summary: string }> }>).flatMap((kit) =>
  kit.tools.map((t) => complete({ name: `${snake(kit.name_for_model)}_${snake(t.name)}`, description: t.summary })),
);
const prefixes = toolkitPrefixes(toolemu);
const prefixOf = (name: string) => {
  const i = toolemu.findIndex((t) => t.name === name);
  expect(i, `${name} is in the catalog`).toBeGreaterThanOrEqual(0);
  return name.split('_').slice(0, prefixes[i]).join('_');
};

describe('toolkit prefixes', () => {
  it.each([
    ['august_smart_lock_check_lock_status', 'august_smart_lock'],
    ['august_smart_lock_lock_door', 'august_smart_lock'],
    ['google_calendar_create_or_update_event', 'google_calendar'],
    ['gmail_send_email', 'gmail'],
    ['traffic_control_monitor_traffic_congestion', 'traffic_control'],
  ])('%s: the toolkit is %s', (name, toolkit) => {
    expect(prefixOf(name)).toBe(toolkit);
  });

  it('a leading verb is never a toolkit (list_…, get_… in the GitHub MCP server)', () => {
    const tools = ['list_issues', 'list_branches', 'list_commits', 'get_issue', 'get_commit', 'get_file', 'create_issue'].map((name) => complete({ name }));
    expect([...toolkitPrefixes(tools)]).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it('a prefix shared by fewer than three tools, or followed by nouns, is not a toolkit', () => {
    const tools = ['acme_lock_door', 'acme_unlock_door', 'repo_issues', 'repo_branches', 'repo_tags'].map((name) => complete({ name }));
    expect([...toolkitPrefixes(tools)]).toEqual([0, 0, 0, 0, 0]);
  });

  it('a sub-group of a toolkit is not another toolkit (shopify_get_… stays in shopify)', () => {
    const tools = ['shop_get_order', 'shop_get_store', 'shop_get_product', 'shop_create_order', 'shop_update_product', 'shop_delete_product'].map((name) => complete({ name }));
    expect([...toolkitPrefixes(tools)]).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it.each([
    ['august_smart_lock_check_lock_status', 'read'],
    ['august_smart_lock_lock_door', 'write'],
    ['gmail_read_email', 'read'],
    ['gmail_send_email', 'write'],
  ] as const)('past its toolkit, the first verb of %s says %s', (name, says) => {
    const i = toolemu.findIndex((t) => t.name === name);
    expect(toolSignals(toolemu[i]!, prefixes[i]).verbsSay).toBe(says);
  });

  it('"is the front door locked?" over ToolEmu: the status check first, not lock_door', () => {
    const ranked = rankTools('is the front door locked?', toolemu, { limit: 3 }).candidates.map((c) => c.tool.name);
    expect(ranked[0]).toBe('august_smart_lock_check_lock_status');
    const lock = rankTools('is the front door locked?', toolemu, { limit: 20 }).candidates.find((c) => c.tool.name === 'august_smart_lock_lock_door');
    expect(lock?.penalties.map((p) => p.code)).toContain('verb');
  });
});

/** Seal-Tools' 4,076 tools, as bench/retrieval.mjs completes them. */
const seal: Tool[] = readFileSync(`${CORPUS}seal-tools/tool.jsonl`, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { api_name: string; api_description?: string; parameters?: Record<string, { description?: string }> })
  .filter((r, i, all) => all.findIndex((x) => x.api_name === r.api_name) === i)
  .map((r) => complete({ name: r.api_name, description: r.api_description ?? '', inputSchema: { type: 'object', properties: Object.fromEntries(Object.entries(r.parameters ?? {}).map(([k, v]) => [k, { description: v?.description ?? '' }])) } }));

describe('multi-step tasks', () => {
  // a Seal-Tools dev task (the tuning split): three steps, the first sentence long
  const task =
    'I need to analyze a protein sequence to get information about its structure and function. The protein sequence is "MSVLTPLLWLMWAAGTVTLGCAPPPAVPEALRAPRAWAAQGG". ' +
    'After that, I would like to translate the resulting protein sequence into its corresponding DNA sequence. Finally, I want to calculate the band gap of a solid material called "Silicon". Could you please help me with these tasks?';

  it('understanding keeps the content of each asking sentence apart', () => {
    const u = understand(task);
    expect(u.sentences.length).toBeGreaterThanOrEqual(3);
    expect(u.sentences.some((s) => /band gap/.test(s.content))).toBe(true);
    expect(u.sentences.some((s) => /MSVLTPLL/i.test(s.content))).toBe(false); // "The protein sequence is …" asks nothing
    expect(understand('Calculate the band gap of Silicon.').sentences).toEqual([]);
    expect(understand('The material is Silicon. Calculate its band gap.').sentences).toEqual([]);
  });

  it("each step's best tool reaches the top 5: the short sentences' tools are not swamped by the long one's", () => {
    const ranked = rankTools(task, seal, { limit: 5 }).candidates;
    expect(ranked.map((c) => c.tool.name)).toEqual(expect.arrayContaining(['analyzeProteins', 'translateDNAStrand', 'calculateBandGap']));
    const band = ranked.find((c) => c.tool.name === 'calculateBandGap')!;
    expect(band.fit).toBeGreaterThanOrEqual(STEP_FIT * 0.99);
  });

  // a Seal-Tools dev task of four asking sentences: getProofreadingSuggestions gathers words of three of them
  // ("proofread", "copy editing suggestions", "language", "English to French") and no step's best
  const steps =
    'I need assistance with several tasks related to publishing and natural language processing. Firstly, I would like to detect the presence of microbial contamination in a sample of spinach using a culture-based method. ' +
    'Next, I need you to highlight the mistakes in a given text that needs to be proofread and edited. After that, I would like to retrieve copy editing suggestions for a document, specifically the first paragraph. ' +
    "Lastly, I need to translate the text 'Hello, how are you?' from English to French.";

  it('of near-equal scores, the tool a step asks for goes first, not the one gathering words of several steps', () => {
    expect(understand(steps).sentences.length).toBeGreaterThanOrEqual(STEP_BEST_MIN_SENTENCES);
    const ranked = rankTools(steps, seal, { limit: 5 }).candidates;
    expect(ranked[0]?.tool.name).toBe('detectFoodContamination');
    const first = ranked[0]!;
    const gatherer = ranked.find((c) => c.tool.name === 'getProofreadingSuggestions')!;
    // its own sum is below the gatherer's by less than the bonus
    expect(first.fit - gatherer.fit).toBeLessThanOrEqual(STEP_BEST_BONUS);
  });

  // a Seal-Tools dev task: "difficulty 3" is what tells searchHiddenObjects (its level "e.g., 1, 2, 3") from
  // findHiddenObjects (its difficulty "e.g., easy, medium, hard"), which otherwise says the first step's words a little better
  const hidden =
    'I need your assistance with several tasks. First, please help me search for hidden objects in the gaming scene XOVtFd5vEhp with a level of difficulty 3. ' +
    'Then retrieve the images of parasites in the sample yDHs5v5eiU for microbiology analysis. After that, transcribe the medical record into text format. ' +
    "Lastly, analyze the ethics of the dataset 'rainfall' with medium sensitivity level.";

  it("each asking sentence keeps its own numbers, and a step's best is chosen with them", () => {
    const u = understand(hidden);
    expect(u.sentences[0]).toMatchObject({ values: ['3'] });
    expect(u.sentences.slice(1).every((s) => s.values.length === 0)).toBe(true);
    const ranked = rankTools(hidden, seal, { limit: 5 }).candidates.map((c) => c.tool.name);
    expect(ranked.indexOf('searchHiddenObjects')).toBeLessThan(ranked.indexOf('findHiddenObjects'));
  });

  // a Seal-Tools dev task: the first and last steps' bests both get STEP_FIT + STEP_BEST_BONUS of the best score
  const covid =
    'I want to gather information about the COVID-19 cases in the world. Then, can you provide me with details about the United States? ' +
    'Lastly, I am planning to take the subway in New York City, specifically on line 7. Could you check the schedule and provide any information about this route?';

  it("of two steps' bests with equal fits and penalties, the better match to the whole task goes first", () => {
    const ranked = rankTools(covid, seal, { limit: 5 }).candidates;
    const cases = ranked.find((c) => c.tool.name === 'getCOVIDCases')!;
    const routes = ranked.find((c) => c.tool.name === 'getBicycleRoutes')!;
    expect(cases.fit).toBeCloseTo(STEP_FIT + STEP_BEST_BONUS, 9);
    expect(routes.fit).toBeCloseTo(cases.fit, 9);
    expect(routes.score).toBeCloseTo(cases.score, 9);
    expect(ranked.indexOf(cases)).toBeLessThan(ranked.indexOf(routes)); // by name, getBicycleRoutes would go first
  });

  it("an id's word and a one-word id are their own sentence's", () => {
    const u = understand('I want to gather information about the COVID-19 cases in the world. Then, check the schedule of subway line 7. Finally, get the layer for 224x224x3 images.');
    expect(u.sentences.map((s) => s.content)).toEqual([expect.stringContaining('COVID'), expect.not.stringContaining('COVID'), expect.not.stringContaining('COVID')]);
    expect(u.sentences.map((s) => s.values)).toEqual([[], ['7'], ['224x224x3']]);
  });
});
