import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { Clock } from '../../shared/clock.ts';

// Sessions of the back-office app live in the database (app_sessions), so that any API
// process can serve a person, and a session can be ended at once (sign-out, sign-out
// everywhere, deactivation). The cookie holds a random token; the table holds only its
// SHA-256, so a copy of the database opens no session. A session ends after IDLE_MS
// without a request or ABSOLUTE_MS after sign-in, whichever comes first.

export const IDLE_MS = 60 * 60 * 1000;
export const ABSOLUTE_MS = 12 * 60 * 60 * 1000;
/** last_seen_at is written at most this often (not on every request). */
const TOUCH_MS = 60 * 1000;

export type Session = {
  id: string;
  userId: string;
  email: string;
  companyId: string | null;
  csrfToken: string;
  passwordChangeRequired: boolean;
};

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/** Starts a session for the user; returns the cookie's token (shown to nobody else). */
export async function startSession(db: Database, clock: Clock, userId: string, companyId: string | null): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const now = clock.now();
  await db
    .insertInto('app_sessions')
    .values({
      id: tokenHash(token),
      user_id: userId,
      company_id: companyId,
      csrf_token: randomBytes(32).toString('base64url'),
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + ABSOLUTE_MS),
      revoked_at: null,
    })
    .execute();
  return token;
}

/**
 * The live session of a cookie token, or null (unknown, revoked, idle too long, past its
 * end, or its person no longer active anywhere). Moves last_seen_at forward.
 */
export async function findSession(db: Database, clock: Clock, token: string | undefined): Promise<Session | null> {
  if (!token || token.length > 100) return null;
  const id = tokenHash(token);
  const row = await db
    .selectFrom('app_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.id', 's.user_id', 's.company_id', 's.csrf_token', 's.last_seen_at', 's.expires_at', 's.revoked_at', 'u.email', 'u.password_change_required'])
    .select(sql<boolean>`exists (select 1 from memberships m where m.user_id = s.user_id and m.active)`.as('active'))
    .where('s.id', '=', id)
    .executeTakeFirst();
  if (!row || row.revoked_at || !row.active) return null;
  const now = clock.now().getTime();
  if (row.expires_at.getTime() <= now || row.last_seen_at.getTime() + IDLE_MS <= now) return null;
  if (now - row.last_seen_at.getTime() >= TOUCH_MS) {
    await db.updateTable('app_sessions').set({ last_seen_at: clock.now() }).where('id', '=', id).execute();
  }
  return {
    id,
    userId: row.user_id,
    email: row.email,
    companyId: row.company_id,
    csrfToken: row.csrf_token,
    passwordChangeRequired: row.password_change_required,
  };
}

export async function endSession(db: Database, clock: Clock, sessionId: string): Promise<void> {
  await db.updateTable('app_sessions').set({ revoked_at: clock.now() }).where('id', '=', sessionId).where('revoked_at', 'is', null).execute();
}

/** Ends every session of the user (sign-out everywhere, password change, deactivation); keeps `except`. */
export async function endAllSessions(db: Database, clock: Clock, userId: string, except?: string): Promise<number> {
  let query = db.updateTable('app_sessions').set({ revoked_at: clock.now() }).where('user_id', '=', userId).where('revoked_at', 'is', null);
  if (except) query = query.where('id', '<>', except);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function switchCompany(db: Database, sessionId: string, companyId: string): Promise<void> {
  await db.updateTable('app_sessions').set({ company_id: companyId }).where('id', '=', sessionId).execute();
}
