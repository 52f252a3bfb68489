/**
 * What a tool's SQL may say: its tables' definitions and its queries run in
 * the tool's own database (SQLite) or schema (PostgreSQL), and nothing in
 * them may reach past it. The manifest author is trusted to write working
 * SQL, not to reach other tools' data or the store's: a statement that
 * attaches another database, switches schema or role, names another schema,
 * reads files or the server's catalog, or holds more than one statement is
 * refused before it runs.
 *
 * This is a lexical check (strings, quoted identifiers, comments and
 * dollar quotes are skipped as such): it refuses by the words a statement
 * uses, so it may refuse a harmless statement that uses them as names (a
 * column called `pg_x`), never the other way round.
 * @module
 */

/** A word of a statement: a keyword or identifier (unquoted: lower-cased), and whether it was quoted. */
interface Word {
  text: string;
  quoted: boolean;
}

type Token = Word | { punct: string };

/** Statements that change where SQL runs, who it runs as, or what it can reach. */
const LEADING_REFUSED = new Set(['attach', 'detach', 'pragma', 'vacuum', 'set', 'reset', 'copy', 'do', 'call', 'grant', 'revoke', 'load', 'execute', 'prepare', 'deallocate', 'listen', 'notify', 'checkpoint', 'cluster', 'discard', 'lock', 'security', 'import']);

/** `CREATE`/`ALTER`/`DROP` of these objects reaches beyond one schema's tables. */
const OBJECTS_REFUSED = new Set(['schema', 'database', 'extension', 'role', 'user', 'group', 'function', 'procedure', 'language', 'server', 'tablespace', 'publication', 'subscription', 'system', 'foreign', 'policy', 'event', 'rule', 'operator', 'cast', 'aggregate', 'conversion', 'collation']);

/** Words between CREATE/ALTER/DROP and the object type. */
const MODIFIERS = new Set(['or', 'replace', 'trusted', 'procedural', 'temporary', 'temp', 'unlogged', 'global', 'local', 'if', 'not', 'exists', 'unique', 'materialized', 'recursive', 'concurrently', 'default', 'on']);

/** Words refused anywhere: functions that read files, run other SQL, or change settings. */
const WORDS_REFUSED = new Set(['search_path', 'load_extension', 'set_config', 'dblink', 'dblink_exec', 'query_to_xml', 'query_to_xml_and_xmlschema', 'query_to_xmlschema', 'cursor_to_xml', 'table_to_xml', 'database_to_xml', 'schema_to_xml', 'lo_import', 'lo_export', 'information_schema', 'readfile', 'writefile', 'fts3_tokenizer']);

/**
 * Does `sql` create a virtual table (`CREATE VIRTUAL TABLE … USING fts5`)?
 * A virtual table's shadow tables are written by ordinary SQL unless the
 * connection is in SQLite's defensive mode, so a database without it must
 * not get one (tool-db-sqlite.ts). Lexical, as the rest of this guard.
 * @example createsVirtualTable('create virtual table docs using fts5(body)') // true
 */
export function createsVirtualTable(sql: string): boolean {
  const lexed = lex(sql);
  if (typeof lexed === 'string') return false;
  const words = lexed.filter((t): t is Word => 'text' in t);
  if (words[0]?.quoted !== false || words[0].text !== 'create') return false;
  const object = words.slice(1).find((w) => w.quoted || !MODIFIERS.has(w.text));
  return object !== undefined && !object.quoted && object.text === 'virtual';
}

/**
 * Why `sql` may not run in a tool's own database, or undefined when it may.
 * `own` is the name of the tool's own schema (`main` in SQLite; qualifiers
 * naming it are allowed).
 * @example sqlRefusal('ATTACH DATABASE "x.db" AS x', 'main') // 'ATTACH ...'
 * @example sqlRefusal('SELECT value FROM counters WHERE name = ?', 'main') // undefined
 */
export function sqlRefusal(sql: string, own: string): string | undefined {
  const lexed = lex(sql);
  if (typeof lexed === 'string') return lexed;
  const tokens = lexed;
  // one statement: a ";" may only end the text
  const semi = tokens.findIndex((t) => 'punct' in t && t.punct === ';');
  if (semi >= 0 && tokens.slice(semi + 1).some((t) => !('punct' in t && t.punct === ';'))) return 'it holds more than one statement (one statement each)';
  const words = tokens.filter((t): t is Word => 'text' in t);
  const first = words[0];
  if (first === undefined) return 'it is empty';
  if (!first.quoted && LEADING_REFUSED.has(first.text)) return `${first.text.toUpperCase()} statements are refused (they reach beyond the tool's own database)`;
  if (!first.quoted && ['create', 'alter', 'drop', 'comment'].includes(first.text)) {
    // the object type follows the verb and its modifiers (CREATE OR REPLACE TRUSTED PROCEDURAL LANGUAGE …)
    const object = words.slice(1).find((w) => w.quoted || !MODIFIERS.has(w.text));
    if (object && !object.quoted && OBJECTS_REFUSED.has(object.text))
      return `${first.text.toUpperCase()} ${object.text.toUpperCase()} is refused (only tables, indexes, views and triggers of the tool's own database)`;
  }
  // moving an object out of the tool's schema, or handing it to another role
  for (let i = 0; i + 1 < words.length; i++) {
    const [a, b] = [words[i]!, words[i + 1]!];
    if (!a.quoted && !b.quoted && ((a.text === 'set' && b.text === 'schema') || (a.text === 'owner' && b.text === 'to'))) return `${a.text.toUpperCase()} ${b.text.toUpperCase()} is refused (it reaches beyond the tool's own database)`;
  }
  // quoted too: PostgreSQL calls "pg_read_file"(...) as well
  for (const w of words) {
    const text = w.text.toLowerCase();
    if (WORDS_REFUSED.has(text)) return `"${w.text}" is refused (it reaches beyond the tool's own database)`;
    if (text.startsWith('pg_')) return `"${w.text}": names starting with pg_ (the server's catalog and functions) are refused`;
    if (text.startsWith('lo_')) return `"${w.text}": large-object functions (lo_…) are refused (large objects are shared by the whole database)`;
  }
  // qualified names: schema.table or schema.table.column must name the tool's own schema
  const isWord = (t: Token | undefined): t is Word => t !== undefined && 'text' in t;
  const isDot = (t: Token | undefined): boolean => t !== undefined && 'punct' in t && t.punct === '.';
  for (let i = 0; i + 2 < tokens.length; i++) {
    const head = tokens[i];
    const second = tokens[i + 2];
    // only the start of a dotted name (not `b.c` inside `a.b.c`)
    if (!isWord(head) || !isDot(tokens[i + 1]) || !isWord(second) || isDot(tokens[i - 1]) || head.text === own) continue;
    const third = tokens[i + 4];
    if (isDot(tokens[i + 3]) && isWord(third)) return `"${head.text}.${second.text}.${third.text}" names another schema than the tool's own`;
    if (KNOWN_SCHEMAS.has(head.text)) return `"${head.text}.${second.text}" names another schema than the tool's own`;
  }
  return undefined;
}

/** Schema names that are never a table or alias a tool's SQL may qualify with. */
const KNOWN_SCHEMAS = new Set(['main', 'temp', 'public', 'pg_catalog', 'information_schema', 'pg_toast', 'toolcap']);

/**
 * Extra schema names a PostgreSQL check refuses (every schema on the server
 * but the tool's own), for {@link sqlRefusalIn}.
 */
export function sqlRefusalIn(sql: string, own: string, otherSchemas: ReadonlySet<string>): string | undefined {
  const refusal = sqlRefusal(sql, own);
  if (refusal !== undefined) return refusal;
  const lexed = lex(sql);
  if (typeof lexed === 'string') return lexed;
  for (let i = 0; i + 1 < lexed.length; i++) {
    const a = lexed[i]!;
    const dot = lexed[i + 1]!;
    if ('text' in a && 'punct' in dot && dot.punct === '.' && a.text !== own && otherSchemas.has(a.text)) return `"${a.text}" is another schema than the tool's own`;
  }
  return undefined;
}

/** Words and punctuation of a statement, or why it cannot be read (an unterminated string or comment). */
function lex(sql: string): Token[] | string {
  const out: Token[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) return 'it has an unterminated comment';
      // PostgreSQL nests block comments, SQLite does not: a "/*" inside one would be read two ways
      if (sql.slice(i + 2, end).includes('/*')) return 'it has a comment inside a comment (read differently by SQLite and PostgreSQL)';
      i = end + 2;
    } else if (c === "'") {
      const end = closing(sql, i, "'");
      if (end < 0) return 'it has an unterminated string';
      // with standard_conforming_strings off a backslash escapes a quote: the string would end elsewhere than here
      if (sql.slice(i + 1, end).includes('\\')) return 'it has a backslash in a string (it may escape the quote); pass such values as parameters';
      i = end + 1;
      out.push({ punct: 'string' });
    } else if (c === '"' || c === '`') {
      const end = closing(sql, i, c);
      if (end < 0) return 'it has an unterminated quoted name';
      out.push({ text: sql.slice(i + 1, end).replaceAll(c + c, c), quoted: true });
      i = end + 1;
    } else if (c === '[') {
      // SQLite reads [ ] as a quoted name, PostgreSQL as a subscript or an ARRAY[…] whose inside is SQL
      // (a subquery, a function call): read it both ways. An inside that cannot be read on its own (a
      // string, comment or nested [ that goes on past the "]") is where the two readings part.
      const end = sql.indexOf(']', i + 1);
      if (end < 0) return 'it has an unterminated [bracketed] name';
      const inside = lex(sql.slice(i + 1, end));
      if (typeof inside === 'string') return `it has a [bracketed] part that SQLite and PostgreSQL read differently (${inside})`;
      out.push({ text: sql.slice(i + 1, end), quoted: true }, ...inside);
      i = end + 1;
    } else if (c === '$' && /[A-Za-z_$]/.test(sql[i + 1] ?? '')) {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
      if (tag) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        if (end < 0) return 'it has an unterminated dollar-quoted string';
        i = end + tag[0].length;
        out.push({ punct: 'string' });
      } else {
        // a named parameter ($name)
        const m = /^\$[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i))!;
        i += m[0].length;
        out.push({ punct: 'param' });
      }
    } else if (/[A-Za-z_]/.test(c)) {
      // E'…' reads backslash escapes, U&'…' and U&"…" unicode escapes: what the server reads is not what is written here
      if (/^[Ee]'/.test(sql.slice(i, i + 2))) return "it has an escape string (E'…'); pass such values as parameters";
      if (/^[Uu]&['"]/.test(sql.slice(i, i + 3))) return 'it has a unicode-escaped string or name (U&…); write names as they are';
      const m = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i))!;
      out.push({ text: m[0].toLowerCase(), quoted: false });
      i += m[0].length;
    } else if (/[0-9]/.test(c)) {
      const m = /^[0-9][0-9.eE+-]*/.exec(sql.slice(i))!;
      i += m[0].length;
      out.push({ punct: 'number' });
    } else {
      out.push({ punct: c });
      i++;
    }
  }
  return out;
}

/** The index of the quote closing the one at `start` (a doubled quote is an escaped one), or -1. */
function closing(sql: string, start: number, quote: string): number {
  let i = start + 1;
  for (;;) {
    const end = sql.indexOf(quote, i);
    if (end < 0) return -1;
    if (sql[end + 1] === quote && quote !== ']') {
      i = end + 2;
      continue;
    }
    return end;
  }
}
