/**
 * Canonical tool names for Shinkai metadata. Shinkai's `name` is written for
 * people ("Shinkai: Download Pages"); toolcap names are lowercase ids, so the
 * name is slugged and the slug marked derived.
 * @module
 */

/**
 * A lowercase `[a-z0-9_]` slug of a human-readable name: accents are folded,
 * every run of other characters becomes one `_`, and `_` at either end is
 * trimmed. Empty when the text has no ASCII letter or digit.
 * @example slugify('Shinkai: Download Pages') // 'shinkai_download_pages'
 */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/**
 * A folder name for a tool's `metadata.json` on export: the canonical name
 * with anything unsafe in a path segment replaced, never starting with a dot.
 * @example folderName('shinkai_coin_flip') // 'shinkai_coin_flip'
 */
export function folderName(name: string): string {
  const safe = name.toLowerCase().replace(/[^a-z0-9_.-]+/g, '_').replace(/^\.+/, '');
  return safe === '' ? 'tool' : safe;
}
