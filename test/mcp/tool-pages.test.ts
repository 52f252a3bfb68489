/**
 * A server's whole tools/list is read within limits it cannot push past:
 * pages, tools, bytes of definitions in all, a cursor that repeats. A
 * stand-in client answers the pages (the limits are toolcap's, not the
 * transport's; test/mcp/clients.test.ts reads real servers' lists).
 */
import { describe, expect, it } from 'vitest';
import { listAllTools, MAX_LIST_BYTES, MAX_PAGES, MAX_TOOLS } from '../../src/mcp/tool-pages.js';

/** A client whose `tools/list` pages are `pages(n)`, each naming the next cursor until `last`. */
function pagedClient(toolsOf: (page: number) => object[], last: number, cursorOf: (page: number) => string = (p) => `c${p + 1}`) {
  let asked = 0;
  return {
    asked: () => asked,
    listTools: async (params?: { cursor?: string }) => {
      const page = params?.cursor === undefined ? 0 : Number(params.cursor.slice(1));
      asked++;
      return { tools: toolsOf(page), ...(page < last ? { nextCursor: cursorOf(page) } : {}) } as never;
    },
  };
}

const tool = (name: string, descriptionBytes = 10) => ({ name, description: 'd'.repeat(descriptionBytes), inputSchema: { type: 'object' } });

describe('listAllTools', () => {
  it('reads every page of a list within the limits', async () => {
    const client = pagedClient((p) => [tool(`t${p}a`), tool(`t${p}b`)], 4);
    const { tools, truncated } = await listAllTools(client);
    expect(tools.map((t) => t.name)).toEqual(['t0a', 't0b', 't1a', 't1b', 't2a', 't2b', 't3a', 't3b', 't4a', 't4b']);
    expect(truncated).toBeUndefined();
  });

  it.each([
    // each a little over 1 MiB as JSON: the 32nd passes 32 MiB
    ['too many bytes of definitions in all', () => pagedClient((p) => [tool(`big${p}`, 1024 * 1024)], 99), 31, new RegExp(`pass ${MAX_LIST_BYTES} bytes of JSON after 31 tools`)],
    ['too many tools', () => pagedClient((p) => Array.from({ length: 500 }, (_, i) => tool(`t${p}_${i}`, 1)), 99), MAX_TOOLS, /more than 10000 tools/],
    ['too many pages', () => pagedClient((p) => [tool(`t${p}`)], 10_000), MAX_PAGES, /more than 100 pages/],
    ['a cursor that repeats', () => pagedClient((p) => [tool(`t${p}`)], 10_000, () => 'c1'), 2, /repeated the cursor "c1"/],
  ])('stops at %s, keeping what came before and saying why', async (_label, make, kept, why) => {
    const client = make();
    const { tools, truncated } = await listAllTools(client);
    expect(tools).toHaveLength(kept);
    expect(truncated).toMatch(why);
    expect(client.asked()).toBeLessThanOrEqual(MAX_PAGES);
  });

  it('counts bytes as the definitions would be written', async () => {
    const small = tool('x', 100);
    const bytes = Buffer.byteLength(JSON.stringify(small));
    const { tools, truncated } = await listAllTools(pagedClient(() => [small, small, small], 0), bytes * 2);
    expect(tools).toHaveLength(2);
    expect(truncated).toMatch(/after 2 tools/);
  });
});
