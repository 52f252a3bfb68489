// The snapshot etag (registry/etag.ts): a SHA-256 over the document's other
// parts and one SHA-256 per tool. Pinned here to its definition, held equal
// for equal documents however their objects were made, and shown to change
// when any part of the document changes.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/model/objects.js';
import { buildCatalog } from '../../src/registry/catalog.js';
import { documentEtag, etagOf, toolDigest } from '../../src/registry/etag.js';
import { createSnapshot, documentHash } from '../../src/registry/snapshot.js';

const CORPUS = '/work/shared/corpus';
const snapshot = createSnapshot(buildCatalog([join(CORPUS, 'mcp-github-server/tools.json')]), { version: 1, builtAt: '2026-01-01T00:00:00.000Z' });
type Doc = { bundles: unknown[]; tools: Array<Record<string, unknown>>; skills: unknown[]; agents: unknown[]; jobs: unknown[] };
/** A thawed deep copy of the snapshot's document, to edit. */
const copy = (): Doc => structuredClone(snapshot.document) as unknown as Doc;

describe('the snapshot etag', () => {
  it('is sha256 of the tag, the canonical JSON of the document without tools, a line break and each tool digest', () => {
    const { tools, ...rest } = snapshot.document;
    expect(tools.length).toBeGreaterThan(20);
    const digest = (tool: unknown) => createHash('sha256').update(canonicalJson(tool), 'utf8').digest();
    const bytes = Buffer.concat([Buffer.from(`toolcap-etag/2\n${canonicalJson(rest)}\n`, 'utf8'), ...tools.map(digest)]);
    expect(snapshot.etag).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
    expect(snapshot.etag).toBe(documentEtag(snapshot.document));
    expect(Buffer.from(toolDigest(tools[0]), 'latin1')).toEqual(digest(tools[0]));
  });

  it('is the same for equal documents made of other objects, in another key order', () => {
    const reordered = copy();
    reordered.tools = reordered.tools.map((tool) => Object.fromEntries(Object.entries(tool).reverse()));
    expect(documentEtag(reordered)).toBe(snapshot.etag);
    expect(documentHash(copy() as never)).toBe(snapshot.etag);
  });

  it.each<[string, (doc: Doc) => void]>([
    ['a tool description', (d) => (d.tools[3]!.description = `${String(d.tools[3]!.description)}.`)],
    ['a nested field of a tool', (d) => ((d.tools[5]!.effects as { mode: string }).mode += '-edited')],
    ['the order of two tools', (d) => d.tools.splice(0, 2, d.tools[1]!, d.tools[0]!)],
    ['a tool removed', (d) => d.tools.pop()],
    ['a tool added', (d) => d.tools.push({ name: 'x.new' })],
    ['a bundle', (d) => d.bundles.push({ name: 'b' })],
    ['a skill', (d) => d.skills.push({ name: 's', tools: [] })],
    ['an agent', (d) => d.agents.push({ name: 'a' })],
    ['a job', (d) => d.jobs.push({ name: 'j' })],
    ['a tool moved into another part', (d) => d.skills.push(d.tools.pop())],
  ])('changes when %s changes', (_what, edit) => {
    const doc = copy();
    edit(doc);
    expect(documentEtag(doc)).not.toBe(snapshot.etag);
  });

  it('takes digests as given: etagOf over memoised digests equals the whole hash', () => {
    const { tools, ...rest } = snapshot.document;
    expect(etagOf(rest, tools.map(toolDigest))).toBe(snapshot.etag);
    expect(etagOf(rest, [])).not.toBe(etagOf({ ...rest, tools: [] }, []));
  });
});
