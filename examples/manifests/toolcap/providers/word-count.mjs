// A `command` provider: toolcap spawns `node word-count.mjs` (no shell),
// writes the arguments as JSON on stdin and reads the result as JSON from stdout.
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const { text } = JSON.parse(input);
  const words = text.split(/\s+/).filter(Boolean);
  process.stdout.write(JSON.stringify({ words: words.length, characters: text.length }));
});
