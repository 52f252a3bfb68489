// The crash test's child (test/store/crash.test.ts): writes to a store's
// database in a loop, exactly as the store does (the same pragmas and the same
// SQL, handed over by the parent from src/store/), and prints one line per
// write after its commit returned. The parent kills it with SIGKILL at a
// random point and checks that every printed (acknowledged) write is kept.
//
// Lines (written with writeSync, whole lines, after the commit):
//   A <i> <seq>          an audit record (one autocommit INSERT)
//   P <i> <seq> <id>     an approval and its audit record (one transaction)
//   HOLD                 (mode "hold") a transaction is open and not committed
import { writeSync } from 'node:fs';

const config = JSON.parse(process.env.TOOLCAP_CRASH ?? '{}');
const { kind, round, mode = 'loop', statements, approvalColumns, auditColumns } = config;

const say = (line) => writeSync(1, `${line}\n`);

/** Must match expectedDetail() in crash.test.ts. */
function detailFor(round, i) {
  return { round, i, text: `crash ✓ 🚀 Grüße ${i}`, nested: { list: [i, i * 2, { deep: 'x'.repeat(i % 50) }] }, big: 2 ** 53 - i, none: null };
}

function auditRow(i, kindName, detail) {
  const row = { at: new Date().toISOString(), kind: kindName, tool: 'crash.tool', call_id: `call_${round}_${i}`, persona: null, actor: 'crash-child', detail: JSON.stringify(detail) };
  return auditColumns.map((c) => row[c]);
}

function approvalRow(i, id) {
  const row = {
    id, tool: 'crash.tool', tool_key: 'crash.tool', persona: null, arguments: JSON.stringify(detailFor(round, i)),
    arguments_hash: 'sha256:crash', manifest_hash: 'sha256:crash', requested_by: 'crash-child', reason: 'crash test',
    created_at: new Date().toISOString(), expires_at: '2099-01-01T00:00:00.000Z', status: 'pending',
    decided_by: null, decided_at: null, note: null, result: 'null',
    requested_by_principal: null, decided_by_principal: null, decided_via: null, outcome: null, code_hash: null,
  };
  return approvalColumns.map((c) => row[c]);
}

/**
 * The node-sqlite driver's behaviour the loop needs (src/store/sqlite-node.ts
 * in full): pragmas, statements, and a transaction that commits or rolls back.
 * node:sqlite's load-time ExperimentalWarning (Node 22) is kept off stderr.
 */
function openNodeSqlite(path) {
  const emitWarning = process.emitWarning;
  process.emitWarning = (w, ...rest) => (String(rest[0]) === 'ExperimentalWarning' && /SQLite/.test(String(w)) ? undefined : emitWarning.call(process, w, ...rest));
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
  process.emitWarning = emitWarning;
  const db = new DatabaseSync(path);
  return {
    pragma: (p) => db.exec(`PRAGMA ${p}`),
    prepare: (sql) => db.prepare(sql),
    transaction: (fn) => (...args) => {
      db.exec('BEGIN');
      try {
        const result = fn(...args);
        db.exec('COMMIT');
        return result;
      } catch (err) {
        if (db.isTransaction) db.exec('ROLLBACK');
        throw err;
      }
    },
  };
}

if (kind === 'sqlite') {
  const db = config.driver === 'node-sqlite' ? openNodeSqlite(config.path) : new (await import('better-sqlite3')).default(config.path);
  for (const pragma of config.pragmas) db.pragma(pragma);
  const insertAudit = db.prepare(statements.insertAudit);
  const insertApproval = db.prepare(statements.insertApproval);
  const both = db.transaction((i, id) => {
    const { seq } = insertAudit.get(...auditRow(i, 'crash.approval', { approvalId: id, i }));
    insertApproval.run(...approvalRow(i, id));
    return seq;
  });
  for (let i = 0; ; i++) {
    if (i % 3 === 2) {
      const id = `apr_crash_${round}_${i}`;
      const seq = both(i, id);
      say(`P ${i} ${seq} ${id}`);
    } else {
      const { seq } = insertAudit.get(...auditRow(i, 'crash.append', detailFor(round, i)));
      say(`A ${i} ${seq}`);
    }
  }
} else if (kind === 'postgres') {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: config.url, options: `-c search_path=${config.schema}` });
  await client.connect();
  if (mode === 'hold') {
    await client.query('BEGIN');
    const id = `apr_hold_${round}`;
    await client.query(statements.insertAudit, auditRow(0, 'crash.approval', { approvalId: id, i: 0 }));
    await client.query(statements.insertApproval, approvalRow(0, id));
    say('HOLD');
    await new Promise(() => undefined); // wait to be killed
  }
  for (let i = 0; ; i++) {
    if (i % 3 === 2) {
      const id = `apr_crash_${round}_${i}`;
      await client.query('BEGIN');
      const { rows } = await client.query(statements.insertAudit, auditRow(i, 'crash.approval', { approvalId: id, i }));
      await client.query(statements.insertApproval, approvalRow(i, id));
      await client.query('COMMIT');
      say(`P ${i} ${rows[0].seq} ${id}`);
    } else {
      const { rows } = await client.query(statements.insertAudit, auditRow(i, 'crash.append', detailFor(round, i)));
      say(`A ${i} ${rows[0].seq}`);
    }
  }
} else {
  throw new Error(`unknown kind ${kind}`);
}
