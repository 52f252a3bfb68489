/**
 * Team Notes: a Shinkai tool (metadata.json beside this file) that uses all
 * three things Shinkai metadata can ask of its runner. toolcap calls
 * `run(parameters, context)`:
 *
 * - `context.configurations`: the values of "configurations", from the
 *   config's `tools.team_notes.configurations` (the signing key from the
 *   environment);
 * - `context.oauth.idp`: the access token of the "idp" service of "oauth",
 *   once `toolcap oauth connect team_notes` has run (refreshed by toolcap
 *   when it expires); a call before that is refused with the command;
 * - `context.sql.query(name, params)`: the queries of "sqlQueries", in this
 *   tool's own database.
 *
 * Every call asks the identity provider who is signed in (its OpenID Connect
 * userinfo endpoint, with the token) and records that user as the author of
 * the notes it adds.
 */
import { createHmac, randomUUID } from 'node:crypto';

/** Who the token belongs to: userinfo's email, else its subject. */
async function whoIsSignedIn(userinfoUrl, idp) {
  const res = await fetch(userinfoUrl, { headers: { authorization: `Bearer ${idp.accessToken}`, accept: 'application/json' } });
  if (!res.ok) throw new Error(`the identity provider's userinfo endpoint answered ${res.status}`);
  const me = await res.json();
  const user = typeof me.email === 'string' && me.email !== '' ? me.email : me.sub;
  if (typeof user !== 'string' || user === '') throw new Error('the userinfo answer names no user (no email, no sub)');
  return user;
}

export async function run(parameters, { configurations, oauth, sql }) {
  const { team, userinfoUrl, signingKey } = configurations;
  const user = await whoIsSignedIn(userinfoUrl, oauth.idp);
  const list = async () => (await sql.query('list_notes', { team })).rows;
  if (parameters.action === 'add') {
    if (typeof parameters.text !== 'string' || parameters.text === '') throw new Error('add needs a non-empty "text"');
    const signature = createHmac('sha256', signingKey).update(`${user}\n${parameters.text}`).digest('hex').slice(0, 16);
    const note = { id: randomUUID(), author: user, text: parameters.text, signature };
    await sql.query('insert_note', { ...note, team, created_at: new Date().toISOString() });
    return { team, user, total: (await list()).length, notes: [note] };
  }
  const notes = await list();
  return { team, user, total: notes.length, notes };
}
