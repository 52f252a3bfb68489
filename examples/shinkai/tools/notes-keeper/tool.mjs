/**
 * Notes Keeper: a Shinkai tool (metadata.json beside this file) as toolcap
 * runs it, through the `module` provider (overrides/notes-keeper.yaml names
 * this file). toolcap calls `run(parameters, context)`:
 *
 * - `parameters`: the call's arguments, checked against "parameters";
 * - `context.configurations`: the values of "configurations", from the
 *   config's `tools.notes_keeper.configurations` (the secret from the
 *   environment: `signingKey: { env: NOTES_SIGNING_KEY }`);
 * - `context.sql.query(name, params)`: runs a query declared in
 *   "sqlQueries", in this tool's own database (its "sqlTables" already
 *   created), with `params` bound.
 *
 * What it returns is checked against "result".
 */
import { createHmac, randomUUID } from 'node:crypto';

export async function run(parameters, { configurations, sql }) {
  const { owner, signingKey, maxNotes = 100 } = configurations;
  const { rows: counted } = await sql.query('bump_calls');
  const calls = Number(counted[0].value);
  const total = async () => Number((await sql.query('count_notes', { owner })).rows[0].n);
  if (parameters.action === 'add') {
    if (typeof parameters.text !== 'string' || parameters.text === '') throw new Error('add needs a non-empty "text"');
    if ((await total()) >= maxNotes) throw new Error(`${owner} has ${maxNotes} notes already (maxNotes)`);
    const note = { id: randomUUID(), text: parameters.text, signature: createHmac('sha256', signingKey).update(parameters.text).digest('hex').slice(0, 16) };
    await sql.query('insert_note', { ...note, owner, created_at: new Date().toISOString() });
    return { owner, total: await total(), calls, notes: [note] };
  }
  const { rows } = await sql.query('list_notes', { owner });
  return { owner, total: rows.length, calls, notes: rows };
}
