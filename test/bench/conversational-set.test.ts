/**
 * The conversational task set of issue 13 (bench/tasks): its shape, balance
 * and split, and that every gold tool and every mode label names a tool of
 * the catalog as toolcap loads it (through src, the same layers the bench
 * builds from dist).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildCatalog, personaTools } from '../../src/registry/catalog.js';
import type { Tool } from '../../src/model/schema.js';
// @ts-expect-error: plain JavaScript module shared with the benchmarks
import { catalogNames, conversationalTasks, loadCatalog, modeLabels } from '../../bench/catalogs.mjs';

interface Task {
  id: string;
  catalog: string;
  split: 'dev' | 'test';
  intent: 'read' | 'write';
  task: string;
  gold: string[];
  note?: string;
}

const lines = readFileSync(new URL('../../bench/tasks/conversational.jsonl', import.meta.url), 'utf8').split('\n').filter((l) => l.trim() !== '');
const tasks = conversationalTasks() as Task[];
const catalogs = catalogNames() as string[];
const labels = modeLabels() as Record<string, Record<string, 'read' | 'write'>>;
const loaded = new Map<string, Tool[]>();
for (const name of catalogs) loaded.set(name, (await loadCatalog(name, { buildCatalog, personaTools })) as Tool[]);
const namesOf = (catalog: string) => new Set((loaded.get(catalog) ?? []).map((t) => t.name));
const countBy = <T>(items: readonly T[], key: (t: T) => string) =>
  items.reduce<Record<string, number>>((acc, t) => ((acc[key(t)] = (acc[key(t)] ?? 0) + 1), acc), {});

describe('bench/tasks/conversational.jsonl', () => {
  it('parses, one task a line, every field of the documented shape', () => {
    expect(tasks).toHaveLength(lines.length);
    for (const t of tasks) {
      expect(t.id).toMatch(/^[a-z-]+-\d{3}$/);
      expect(catalogs).toContain(t.catalog);
      expect(['dev', 'test']).toContain(t.split);
      expect(['read', 'write']).toContain(t.intent);
      expect(t.task.trim().length).toBeGreaterThan(5);
      expect(t.gold.length).toBeGreaterThanOrEqual(1);
    }
  });

  it('has at least 150 tasks over at least four catalogs, 30 or more each', () => {
    expect(tasks.length).toBeGreaterThanOrEqual(150);
    const perCatalog = countBy(tasks, (t) => t.catalog);
    expect(Object.keys(perCatalog).length).toBeGreaterThanOrEqual(4);
    for (const n of Object.values(perCatalog)) expect(n).toBeGreaterThanOrEqual(30);
  });

  it('is half read, half write (45 to 55%)', () => {
    const share = tasks.filter((t) => t.intent === 'read').length / tasks.length;
    expect(share).toBeGreaterThanOrEqual(0.45);
    expect(share).toBeLessThanOrEqual(0.55);
  });

  it('has no duplicate ids and no duplicate task texts', () => {
    expect(new Set(tasks.map((t) => t.id)).size).toBe(tasks.length);
    expect(new Set(tasks.map((t) => t.task.trim().toLowerCase())).size).toBe(tasks.length);
  });

  it('names only tools of the loaded catalog as gold, each once', () => {
    const missing = tasks.flatMap((t) => t.gold.filter((g) => !namesOf(t.catalog).has(g)).map((g) => `${t.id}: ${g}`));
    expect(missing).toEqual([]);
    expect(tasks.filter((t) => new Set(t.gold).size !== t.gold.length).map((t) => t.id)).toEqual([]);
  });

  it('has dev and test tasks of both intents in every catalog', () => {
    const groups = countBy(tasks, (t) => `${t.catalog} ${t.intent} ${t.split}`);
    for (const c of catalogs) for (const i of ['read', 'write']) for (const s of ['dev', 'test']) expect(groups[`${c} ${i} ${s}`] ?? 0).toBeGreaterThan(0);
  });

  it('follows the split rule: dev, test, dev, ... within each catalog and intent, in file order', () => {
    const seen: Record<string, number> = {};
    const wrong = tasks.filter((t) => {
      const k = `${t.catalog} ${t.intent}`;
      const n = (seen[k] = (seen[k] ?? 0) + 1);
      return t.split !== (n % 2 === 1 ? 'dev' : 'test');
    });
    expect(wrong.map((t) => t.id)).toEqual([]);
  });
});

describe('bench/tasks/modes.json', () => {
  it('labels only tools that exist, with read or write', () => {
    for (const [catalog, byTool] of Object.entries(labels)) {
      expect(catalogs).toContain(catalog);
      const names = namesOf(catalog);
      expect(Object.keys(byTool).filter((n) => !names.has(n))).toEqual([]);
      expect(new Set(Object.values(byTool))).toEqual(new Set(Object.values(byTool).filter((m) => m === 'read' || m === 'write')));
    }
  });

  it('labels every ToolEmu tool (the catalog has no modes) and the Slack GET endpoints that write', () => {
    expect(Object.keys(labels['toolemu'] ?? {}).sort()).toEqual([...namesOf('toolemu')].sort());
    for (const name of ['auth_revoke', 'apps_uninstall', 'views_publish', 'workflows_step_completed']) expect(labels['slack']?.[name]).toBe('write');
  });

  it("agrees with the tasks: a read task's gold tools are reads, a write task's are writes", () => {
    const truth = (catalog: string, name: string) => labels[catalog]?.[name] ?? (loaded.get(catalog)?.find((t) => t.name === name)?.effects?.mode === 'read' ? 'read' : 'write');
    expect(tasks.filter((t) => t.gold.some((g) => truth(t.catalog, g) !== t.intent)).map((t) => t.id)).toEqual([]);
  });
});
