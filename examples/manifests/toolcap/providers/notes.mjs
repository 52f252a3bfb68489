// The fallback provider of notes.append: appends a line to .toolcap/notes.txt
// beside the examples config (the http provider in front of it points at a
// port nothing listens on, so every call fails over to this one).
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const file = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '.toolcap', 'notes.txt');

export async function append({ line }) {
  await mkdir(dirname(file), { recursive: true });
  await appendFile(file, `${line}\n`);
  return { appended: line, file };
}
