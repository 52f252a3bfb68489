import { describe, expect, it } from 'vitest';
import { createsVirtualTable, sqlRefusal, sqlRefusalIn } from '../../src/validate/sql-guard.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCatalog } from '../../src/registry/catalog.js';

describe('sqlRefusal: what a tool\'s SQL may say', () => {
  it.each([
    'CREATE TABLE IF NOT EXISTS notes (id TEXT PRIMARY KEY, text TEXT NOT NULL)',
    'CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT);',
    'CREATE INDEX IF NOT EXISTS notes_owner ON notes (owner)',
    'SELECT id, text FROM notes WHERE owner = :owner ORDER BY created_at',
    "SELECT n.id FROM notes n WHERE n.text LIKE '%attach database%'",
    'INSERT INTO counters (name, value) VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET value = counters.value + 1',
    'SELECT main.notes.id FROM main.notes',
    'UPDATE notes SET text = @text WHERE id = @id',
    'DELETE FROM notes WHERE id = $id',
    "SELECT 'a;b' AS x -- ; DROP TABLE notes\n",
    // the object type is the word after CREATE and its modifiers: columns may be called event, user or group
    'CREATE TABLE log (event TEXT, user TEXT, "group" TEXT, rule TEXT)',
    'CREATE UNIQUE INDEX IF NOT EXISTS log_event ON log (event)',
    // [ ]: a quoted name in SQLite, a subscript or array in PostgreSQL
    'SELECT [my col] FROM [notes]',
    'SELECT tags[1], ARRAY[1, 2] FROM notes WHERE id = :id',
  ])('allows %s', (sql) => {
    expect(sqlRefusal(sql, 'main')).toBeUndefined();
  });

  it.each([
    ['ATTACH DATABASE \'/etc/other.db\' AS other', /ATTACH/],
    ['attach \'x.db\' as x', /ATTACH/],
    ['DETACH DATABASE other', /DETACH/],
    ['PRAGMA writable_schema = ON', /PRAGMA/],
    ["VACUUM INTO '/tmp/copy.db'", /VACUUM/],
    ['SET search_path TO public', /SET/],
    ['SELECT set_config(\'search_path\', \'public\', false)', /set_config/],
    ['CREATE TABLE public.notes (id TEXT)', /another schema/],
    ['SELECT * FROM toolcap.approvals', /another schema/],
    ['SELECT * FROM other_db.notes.id', /another schema/],
    ['SELECT * FROM pg_catalog.pg_tables', /pg_/],
    ["SELECT \"pg_read_file\"('/etc/passwd')", /pg_/],
    ['SELECT * FROM information_schema.tables', /information_schema/],
    ['CREATE SCHEMA evil', /CREATE SCHEMA/],
    ['DROP SCHEMA toolcap CASCADE', /DROP SCHEMA/],
    ["CREATE FUNCTION f() RETURNS int AS 'select 1' LANGUAGE sql", /CREATE FUNCTION/],
    ["COPY notes TO PROGRAM 'sh'", /COPY/],
    ['DO $$ BEGIN PERFORM 1; END $$', /DO/],
    ["SELECT load_extension('evil')", /load_extension/],
    ['CREATE TABLE a (x INT); DROP TABLE notes', /more than one statement/],
    ["SELECT 'unterminated", /unterminated/],
    // read one way here and another by PostgreSQL (found in review, each ran on a real server before the fix)
    ["SELECT E'\\'', pg_read_file('/etc/hostname') -- '", /escape string/],
    ["SELECT e'x'", /escape string/],
    ["SELECT '\\'', 1 -- '", /backslash/],
    ["/* /* */ select ' */ DO $x$ BEGIN PERFORM 1; END $x$ --'", /comment inside a comment/],
    ['SELECT count(*) FROM U&"\\0069nformation_schema".schemata', /unicode-escaped/],
    ["SELECT u&'\\0041'", /unicode-escaped/],
    ['ALTER TABLE notes SET SCHEMA public', /SET SCHEMA/],
    ['ALTER TABLE notes OWNER TO postgres', /OWNER TO/],
    ["CREATE OR REPLACE TRUSTED LANGUAGE plevil HANDLER h", /CREATE LANGUAGE/],
    ['CREATE OR REPLACE FUNCTION f() RETURNS int AS $$ select 1 $$ LANGUAGE sql', /CREATE FUNCTION/],
    ['SELECT lo_get(16385)', /large-object/],
    ["COMMENT ON SCHEMA public IS 'x'", /COMMENT SCHEMA/],
    ['   ', /empty/],
    // [ ] quotes a name in SQLite but is an array subscript in PostgreSQL: what is between them is SQL there
    ["SELECT ARRAY[query_to_xml('select * from toolcap.api_keys', true, true, '')]", /query_to_xml/],
    ["SELECT ARRAY[']'] ; DROP SCHEMA toolcap CASCADE ; SELECT 1 -- '", /bracket/],
    ['SELECT (ARRAY[(SELECT max(id) FROM toolcap.api_keys)])[1]', /another schema/],
    ['SELECT ARRAY[dblink_exec(1)]', /dblink_exec/],
    ['SELECT a[1; DROP TABLE notes]', /more than one statement/],
  ])('refuses %s', (sql, why) => {
    expect(sqlRefusal(sql, 'main')).toMatch(why);
  });

  it('allows the tool\'s own schema as a qualifier, and refuses every other schema the server has', () => {
    expect(sqlRefusalIn('SELECT * FROM toolcap_tool_a.notes', 'toolcap_tool_a', new Set(['toolcap_tool_b']))).toBeUndefined();
    expect(sqlRefusalIn('SELECT * FROM toolcap_tool_b.notes', 'toolcap_tool_a', new Set(['toolcap_tool_b']))).toMatch(/another schema/);
  });
});

describe('SQL_REFUSED at load', () => {
  it('points at the Shinkai definition and query that reach beyond the tool\'s database', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolcap-sql-refused-'));
    try {
      mkdirSync(join(dir, 'notes'));
      const metadata = {
        name: 'Notes',
        tool_type: 'javascript',
        parameters: { type: 'object', properties: {} },
        sqlTables: [
          { name: 'ok', definition: 'CREATE TABLE ok (id TEXT)' },
          { name: 'bad', definition: "ATTACH DATABASE 'store.db' AS s" },
        ],
        sqlQueries: [{ name: 'peek', query: 'SELECT * FROM toolcap.audit' }],
      };
      const text = JSON.stringify(metadata, null, 2);
      writeFileSync(join(dir, 'notes', 'metadata.json'), text);
      const lineOf = (needle: string) => text.slice(0, text.indexOf(needle)).split('\n').length;
      const found = buildCatalog([dir]).diagnostics.filter((d) => d.code === 'SQL_REFUSED');
      expect(found).toMatchObject([
        { severity: 'error', pointer: '/sqlTables/1/definition', line: lineOf('ATTACH') },
        { severity: 'error', pointer: '/sqlQueries/0/query', line: lineOf('SELECT * FROM toolcap') },
      ]);
      expect(found[0]?.file).toMatch(/metadata\.json$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('createsVirtualTable', () => {
  it.each([
    ['CREATE VIRTUAL TABLE docs USING fts5(body)', true],
    ['create virtual table if not exists docs using rtree(id, a, b)', true],
    ['/* x */ CREATE  VIRTUAL\n TABLE t USING fts3(a)', true],
    ['CREATE TABLE virtual_things (a TEXT)', false],
    ['CREATE TABLE "virtual" (a TEXT)', false],
    ["INSERT INTO t VALUES ('create virtual table')", false],
    ['SELECT 1', false],
  ])('%s: %s', (sql, expected) => {
    expect(createsVirtualTable(sql)).toBe(expected);
  });
});
