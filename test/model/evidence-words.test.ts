// Name and description evidence are read in place (model/evidence.ts: no sentence copy, no visitor per
// word). They must say exactly what the list-based reading said: the first sentence
// (`split(/(?<=[.!?])\s/)[0]`), split by `words`, the first verb of it; for a name, its last dotted
// segment's first verb plus the first destructive one after it.
import { describe, expect, it } from 'vitest';
import { effectEvidence, verdictOf, words, type Evidence } from '../../src/model/evidence.js';
// @ts-expect-error: plain JavaScript module shared with the benchmarks
import { corpusTools } from '../../bench/corpus.mjs';

/** The reading before: list-based, from the public `words`. */
function reference(name: string, description: string | undefined): Evidence[] {
  const out: Evidence[] = [];
  const last = name.slice(name.lastIndexOf('.') + 1) || name;
  let destructive = false;
  for (const w of words(last)) {
    const says = verdictOf(w);
    if (says !== undefined && (out.length === 0 || (says === 'destructive' && !destructive))) {
      out.push({ source: 'name', says, detail: `"${w}"` });
      if (says === 'destructive') destructive = true;
    }
  }
  if (description) {
    const first = description.split(/(?<=[.!?])\s/)[0] ?? '';
    for (const w of words(first)) {
      const says = verdictOf(w);
      if (says) {
        out.push({ source: 'description', says, detail: `"${w}"` });
        break;
      }
    }
  }
  return out;
}

const EDGES: Array<[string, string]> = [
  ['getHTTPResponse', 'Get the thing.'],
  ['tools.', 'Parses HTML. Deletes nothing.'],
  ['a.b.DeleteUserAndRevokeTOKEN', 'HTMLParser runs.'],
  ['ABc', 'ABCd'],
  ['run2Fast', 'x.Delete it'],
  ['x', 'Ends with an acronym HTTP'],
  ['x', 'Ends with an acronym ABc.'],
  ['x', 'Stops at a no-break space.\u00a0Deletes'],
  ['x', 'Stops at a line separator!\u2028Deletes'],
  ['x', 'No space after the stop.Deletes the rest'],
  ['x', 'Fetches, then…\tposts. Deletes'],
  ['x', 'Créer un compte. Delete'],
  ['x', 'Weather only. Créer un compte'],
  ['x', 'Wetter für morgen abrufen; send'],
  ['búsqueda_delete', ''],
  ['revoke_delete_remove', 'purge'],
  ['Send_Email', '   Leading spaces send mail.'],
  ['', 'trailing stop.'],
  ['dotted.', '?! Then delete'],
];

describe('name and description evidence, read in place', () => {
  it.each(EDGES)('%j / %j says what the list-based reading said', (name, description) => {
    expect(effectEvidence({ name, description })).toEqual(reference(name, description));
  });

  it('agrees with the list-based reading on every tool of the corpus', () => {
    const tools = corpusTools() as Array<{ name: string; description: string }>;
    expect(tools.length).toBeGreaterThan(1000);
    const differ = tools.filter((t) => JSON.stringify(effectEvidence(t)) !== JSON.stringify(reference(t.name, t.description)));
    expect(differ.map((t) => t.name)).toEqual([]);
  });
});
