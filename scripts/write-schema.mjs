// Regenerates schema/toolcap.schema.json from the TypeBox source (src/model/schema.ts),
// and schema/atlas-functions.schema.json (ATLAS functions.json) from src/dialects/atlas/schema.ts.
// Tests fail when the shipped files and the sources disagree.
import { writeFileSync } from 'node:fs';
import { atlasFunctionsJsonSchema } from '../dist/dialects/atlas/schema.js';
import { canonicalJsonSchema } from '../dist/model/schema.js';

for (const [file, schema] of [
  ['toolcap.schema.json', canonicalJsonSchema()],
  ['atlas-functions.schema.json', atlasFunctionsJsonSchema()],
]) {
  const target = new URL(`../schema/${file}`, import.meta.url);
  writeFileSync(target, `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`wrote ${target.pathname}`);
}
