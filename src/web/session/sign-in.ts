import type { Database } from '../../db/connection.ts';
import { recordAudit } from '../../modules/audit/audit-log.ts';
import type { Clock } from '../../shared/clock.ts';
import { hashPassword, MAX_PASSWORD_LENGTH, passwordLengthAllowed, verifyPassword, verifySignInPassword } from '../../shared/passwords.ts';
import { endAllSessions, startSession } from './sessions.ts';
import { throttledSignIn, throttleKeys } from './throttle.ts';

// Signing in: one answer for a wrong password and an unknown e-mail (the same message,
// the same work: an unknown e-mail is checked against a dummy hash), throttled per account
// and per address (throttle.ts). A person whose memberships are all inactive cannot sign in.

export type SignInResult = { ok: true; token: string; passwordChangeRequired: boolean } | { ok: false; reason: 'wrong' | 'locked'; until?: Date };

export async function signIn(db: Database, clock: Clock, input: { email: string; password: string; address: string }): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase();
  const result = await throttledSignIn(db, clock, throttleKeys(email, input.address), async () => {
    const user = await db
      .selectFrom('users as u')
      .select(['u.id', 'u.password_hash', 'u.password_change_required'])
      .where('u.email', '=', email)
      .where((eb) => eb.exists(eb.selectFrom('memberships as m').select('m.user_id').whereRef('m.user_id', '=', 'u.id').where('m.active', '=', true)))
      .executeTakeFirst();
    const good = await verifySignInPassword(input.password, user?.password_hash);
    return user && good ? user : null;
  });
  if (!result.ok) return result;
  const user = result.value;
  const company = await firstCompany(db, user.id);
  const token = await startSession(db, clock, user.id, company);
  return { ok: true, token, passwordChangeRequired: user.password_change_required };
}

/** The companies the person reaches: access to the company and an active membership in its organisation. */
export function reachableCompanies(db: Database, userId: string) {
  return db
    .selectFrom('company_access as a')
    .innerJoin('companies as c', 'c.id', 'a.company_id')
    .innerJoin('memberships as m', (join) => join.onRef('m.organization_id', '=', 'c.organization_id').onRef('m.user_id', '=', 'a.user_id'))
    .select(['c.id', 'c.name', 'c.organization_id', 'c.timezone', 'm.role'])
    .where('a.user_id', '=', userId)
    .where('m.active', '=', true)
    .orderBy('c.name')
    .orderBy('c.id')
    .execute();
}

async function firstCompany(db: Database, userId: string): Promise<string | null> {
  return (await reachableCompanies(db, userId))[0]?.id ?? null;
}

export { MIN_PASSWORD_LENGTH } from '../../shared/passwords.ts';

export type PasswordChangeResult = { ok: true } | { ok: false; reason: 'wrong_current' | 'too_short' | 'same_as_current' | 'mismatch' };

/** Changes the password; every other session of the person ends. */
export async function changePassword(
  db: Database,
  clock: Clock,
  userId: string,
  sessionId: string,
  input: { current: string; next: string; repeat: string },
): Promise<PasswordChangeResult> {
  const user = await db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirstOrThrow();
  if (!(await verifyPassword(input.current.slice(0, MAX_PASSWORD_LENGTH), user.password_hash))) return { ok: false, reason: 'wrong_current' };
  if (input.next !== input.repeat) return { ok: false, reason: 'mismatch' };
  if (!passwordLengthAllowed(input.next)) return { ok: false, reason: 'too_short' };
  if (input.next === input.current) return { ok: false, reason: 'same_as_current' };
  const hash = await hashPassword(input.next);
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ password_hash: hash, password_change_required: false }).where('id', '=', userId).execute();
    const ended = await endAllSessions(trx, clock, userId, sessionId);
    // In the trail of every organisation the person belongs to; the password itself never.
    const organizations = await trx.selectFrom('memberships').select('organization_id').where('user_id', '=', userId).execute();
    for (const { organization_id } of organizations) {
      await recordAudit(trx, { userId, organizationId: organization_id, companyId: null }, clock.now(), {
        action: 'user.password_changed',
        subjectType: 'user',
        subjectId: userId,
        after: { other_sessions_ended: ended },
      });
    }
  });
  return { ok: true };
}
