/**
 * One word of a POSIX shell command line, for the commands toolcap prints
 * as hints (`toolcap approvals approve … --config <path>`): a path a person
 * or an agent pastes into a shell must stay one word and never expand.
 * @module
 */

/**
 * `word` as is when it holds only characters no shell treats specially,
 * else in single quotes (each `'` written as `'\''`): nothing inside single
 * quotes expands, unlike double quotes, where `$(…)` and backticks run.
 * @example shellWord('examples/toolcap.config.yaml') // 'examples/toolcap.config.yaml'
 * shellWord('/tmp/a b/$(id).yaml') // "'/tmp/a b/$(id).yaml'"
 */
export function shellWord(word: string): string {
  return /^[\w./@:+,=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
