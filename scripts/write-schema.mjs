// Regenerates schema/toolcap.schema.json from the TypeBox source (src/model/schema.ts).
// A test fails when the shipped file and the source disagree.
import { writeFileSync } from 'node:fs';
import { canonicalJsonSchema } from '../dist/model/schema.js';

const target = new URL('../schema/toolcap.schema.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(canonicalJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
