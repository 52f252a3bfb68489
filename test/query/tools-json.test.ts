/**
 * `/tools` pages written from cached per-tool pieces are byte for byte
 * `JSON.stringify` of the page object, for every kind of page: shared and
 * persona tools, health known and unknown, with and without a next cursor,
 * empty, and asked twice (the second time from the cache).
 */
import { describe, expect, it } from 'vitest';
import type { HealthSource } from '../../src/model/health.js';
import type { ToolFilter } from '../../src/query/filters.js';
import { listToolsJson } from '../../src/query/tools-json.js';
import { listTools } from '../../src/query/views.js';
import { buildCatalog } from '../../src/registry/catalog.js';
import { createSnapshot } from '../../src/registry/snapshot.js';

const snap = createSnapshot(buildCatalog(['examples/manifests', 'examples/overrides', '../shared/corpus/mcp-github-server/tools.json']), { version: 3, builtAt: '2026-01-01T00:00:00.000Z' });
const health: HealthSource = {
  lookup: (name) => (name.length % 3 === 0 ? ({ status: 'degraded', successRate: 0.5, calls: 4 } as unknown as ReturnType<HealthSource['lookup']>) : undefined),
  version: () => 2,
};

describe('listToolsJson', () => {
  it.each<[string, ToolFilter]>([
    ['everything', {}],
    ['a page with a next cursor', { limit: 5 }],
    ['the second page', { limit: 5, offset: 5 }],
    ['one persona', { personas: ['atlas'] }],
    ['read tools at low risk', { mode: 'read', maxRisk: 'low', limit: 20 }],
    ['nothing', { tag: 'no-such-tag' }],
  ])('%s equals JSON.stringify of the page', (_name, filter) => {
    expect(snap.ordered.length).toBeGreaterThan(100);
    for (const h of [health, undefined]) {
      const expected = JSON.stringify(listTools(snap, filter, h));
      expect(listToolsJson(snap, filter, h).text).toBe(expected);
      expect(listToolsJson(snap, filter, h).text).toBe(expected);
    }
  });
});
