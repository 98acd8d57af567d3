import { createHash } from 'node:crypto';
import type { Database } from '../../db/connection.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { isEmailAddress } from '../../shared/email.ts';
import { newId, randomBase62 } from '../../shared/ids.ts';
import { hashPassword } from '../../shared/passwords.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';

// The people of an organisation as its admins manage them in the app (issue 15, point 1):
// invite (a one-time password shown once, to be changed at the first sign-in), role,
// active or not, and which of the organisation's companies a person reaches. The API keys
// follow by the rules of interface §5, checked at every request (http/auth.ts, cached for at
// most a few seconds): a member's keys answer 403 api_key_admin_required, a deactivated
// person's 401 api_key_user_inactive, a company taken away 403 api_key_entity_not_accessible.
// Every change is one transaction with its audit row. An admin cannot lock themselves
// out: no demoting, deactivating or taking a company from oneself, and never the last
// active admin.

export class PeopleError extends Error {}

/** The refusal of an address that is no e-mail address (shared/email.ts: the API's check). */
export const INVALID_EMAIL = 'Bitte geben Sie eine gültige E-Mail-Adresse an (z. B. name@firma.de).';

export type Person = { user_id: string; email: string; role: 'admin' | 'member'; active: boolean; company_ids: string[] };

export async function listPeople(db: Database, organizationId: string): Promise<Person[]> {
  const rows = await db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.email', 'm.role', 'm.active'])
    .where('m.organization_id', '=', organizationId)
    .orderBy('u.email')
    .execute();
  const access = await db
    .selectFrom('company_access as a')
    .innerJoin('companies as c', 'c.id', 'a.company_id')
    .select(['a.user_id', 'a.company_id'])
    .where('c.organization_id', '=', organizationId)
    .execute();
  return rows.map((row) => ({
    user_id: row.id,
    email: row.email,
    role: row.role as Person['role'],
    active: row.active,
    company_ids: access.filter((a) => a.user_id === row.id).map((a) => a.company_id),
  }));
}

async function organizationCompanies(trx: Trx, organizationId: string, companyIds: readonly string[]): Promise<void> {
  if (companyIds.length === 0) return;
  const found = await trx.selectFrom('companies').select('id').where('organization_id', '=', organizationId).where('id', 'in', companyIds).execute();
  if (found.length !== new Set(companyIds).size) throw new PeopleError('Eine der gewählten Firmen gehört nicht zu Ihrer Organisation.');
}

async function member(trx: Trx, organizationId: string, userId: string) {
  const row = await trx
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.email', 'm.role', 'm.active'])
    .where('m.organization_id', '=', organizationId)
    .where('m.user_id', '=', userId)
    .forNoKeyUpdate('m')
    .executeTakeFirst();
  if (!row) throw new PeopleError('Diese Person gehört nicht zu Ihrer Organisation.');
  return row;
}

/** Locks the organisation's admin rows and refuses a change that leaves no active admin. */
async function assertAdminRemains(trx: Trx, organizationId: string, losing: string): Promise<void> {
  const admins = await trx
    .selectFrom('memberships')
    .select('user_id')
    .where('organization_id', '=', organizationId)
    .where('role', '=', 'admin')
    .where('active', '=', true)
    .orderBy('user_id')
    .forNoKeyUpdate()
    .execute();
  if (admins.every((a) => a.user_id === losing)) throw new PeopleError('Die Organisation braucht mindestens einen aktiven Administrator.');
}

export type Invited = { userId: string; email: string; role: 'admin' | 'member'; oneTimePassword: string | null };

/**
 * Invites a person into the organisation with a role and companies. A new e-mail address
 * gets a user with a one-time password (returned once, never stored in clear); a person
 * who already has a Kontor login (another organisation) keeps their password.
 */
export async function invitePerson(
  deps: { db: Database; clock: Clock },
  actor: Actor,
  input: { email: string; role: string; companyIds: readonly string[] },
): Promise<Invited> {
  const email = input.email.trim().toLowerCase();
  if (!isEmailAddress(email)) throw new PeopleError(INVALID_EMAIL);
  if (input.role !== 'admin' && input.role !== 'member') throw new PeopleError('Die Rolle ist Administrator oder Mitglied.');
  const role = input.role;
  if (input.companyIds.length === 0) throw new PeopleError('Bitte wählen Sie mindestens eine Firma.');
  const password = randomBase62(20);
  const passwordHash = await hashPassword(password);
  return inTransaction(deps.db, async (trx) => {
    await organizationCompanies(trx, actor.organizationId, input.companyIds);
    const existing = await trx.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
    const userId = existing?.id ?? newId('usr');
    if (existing) {
      const already = await trx
        .selectFrom('memberships')
        .select('user_id')
        .where('organization_id', '=', actor.organizationId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (already) throw new PeopleError(`${email} gehört bereits zur Organisation.`);
    } else {
      await trx.insertInto('users').values({ id: userId, email, password_hash: passwordHash, password_change_required: true }).execute();
    }
    const now = deps.clock.now();
    await trx
      .insertInto('memberships')
      .values({ organization_id: actor.organizationId, user_id: userId, role, active: true, created_at: now, updated_at: now })
      .execute();
    await trx
      .insertInto('company_access')
      .values([...new Set(input.companyIds)].map((companyId) => ({ company_id: companyId, user_id: userId, created_at: now })))
      .onConflict((oc) => oc.columns(['company_id', 'user_id']).doNothing())
      .execute();
    await recordAudit(trx, actor, now, {
      action: 'person.invited',
      subjectType: 'user',
      subjectId: userId,
      after: { email, role, companies: [...new Set(input.companyIds)], new_login: !existing },
    });
    return { userId, email, role, oneTimePassword: existing ? null : password };
  });
}

export async function setPersonRole(deps: { db: Database; clock: Clock }, actor: Actor, userId: string, role: string): Promise<void> {
  if (role !== 'admin' && role !== 'member') throw new PeopleError('Die Rolle ist Administrator oder Mitglied.');
  await inTransaction(deps.db, async (trx) => {
    const person = await member(trx, actor.organizationId, userId);
    if (person.role === role) return;
    if (role === 'member') {
      if (userId === actor.userId) throw new PeopleError('Sie können sich nicht selbst die Administratorrolle nehmen.');
      await assertAdminRemains(trx, actor.organizationId, userId);
    }
    const now = deps.clock.now();
    await trx
      .updateTable('memberships')
      .set({ role, updated_at: now })
      .where('organization_id', '=', actor.organizationId)
      .where('user_id', '=', userId)
      .execute();
    await recordAudit(trx, actor, now, {
      action: 'person.role_changed',
      subjectType: 'user',
      subjectId: userId,
      before: { role: person.role },
      after: { role },
    });
  });
}

export async function setPersonActive(deps: { db: Database; clock: Clock }, actor: Actor, userId: string, active: boolean): Promise<void> {
  await inTransaction(deps.db, async (trx) => {
    const person = await member(trx, actor.organizationId, userId);
    if (person.active === active) return;
    if (!active) {
      if (userId === actor.userId) throw new PeopleError('Sie können sich nicht selbst deaktivieren.');
      await assertAdminRemains(trx, actor.organizationId, userId);
    }
    const now = deps.clock.now();
    await trx
      .updateTable('memberships')
      .set({ active, updated_at: now })
      .where('organization_id', '=', actor.organizationId)
      .where('user_id', '=', userId)
      .execute();
    await recordAudit(trx, actor, now, {
      action: active ? 'person.reactivated' : 'person.deactivated',
      subjectType: 'user',
      subjectId: userId,
      before: { active: person.active },
      after: { active },
    });
  });
}

export async function setPersonCompany(deps: { db: Database; clock: Clock }, actor: Actor, userId: string, companyId: string, reach: boolean): Promise<void> {
  if (!reach && userId === actor.userId) throw new PeopleError('Sie können sich nicht selbst eine Firma entziehen.');
  await inTransaction(deps.db, async (trx) => {
    await member(trx, actor.organizationId, userId);
    await organizationCompanies(trx, actor.organizationId, [companyId]);
    const now = deps.clock.now();
    if (reach) {
      const added = await trx
        .insertInto('company_access')
        .values({ company_id: companyId, user_id: userId, created_at: now })
        .onConflict((oc) => oc.columns(['company_id', 'user_id']).doNothing())
        .returning('company_id')
        .execute();
      if (added.length === 0) return;
    } else {
      const removed = await trx.deleteFrom('company_access').where('company_id', '=', companyId).where('user_id', '=', userId).executeTakeFirst();
      if (Number(removed.numDeletedRows) === 0) return;
    }
    await recordAudit(trx, { ...actor, companyId }, now, {
      action: reach ? 'person.company_given' : 'person.company_taken',
      subjectType: 'user',
      subjectId: userId,
      after: { company_id: companyId },
    });
  });
}

export type PasswordReset = { userId: string; email: string; oneTimePassword: string; sessionsEnded: number };

/**
 * Resets a person's password (issue 25): a new one-time password (returned once, stored only
 * hashed), to be replaced at the next sign-in as after an invitation; every session of the
 * person ends, their API keys stay as they are. An admin resets another person of the
 * organisation, never themselves (that is "Passwort ändern", which needs the current one;
 * a reset would end the admin's own session by accident), and not a person who also
 * belongs to another organisation (their login opens that one too: only they themselves or
 * the operator may reset it). `actor: 'server'` is the operator's recovery on the machine
 * (`kontor admin user reset-password` without --by): any person, in the trail of each of
 * their organisations as done by the person themselves with `by: "server"`.
 */
export async function resetPassword(deps: { db: Database; clock: Clock }, actor: Actor | 'server', userId: string): Promise<PasswordReset> {
  if (actor !== 'server' && userId === actor.userId)
    throw new PeopleError('Ihr eigenes Passwort setzen Sie nicht zurück, sondern ändern es unter „Passwort ändern“.');
  const password = randomBase62(20);
  const passwordHash = await hashPassword(password);
  return inTransaction(deps.db, async (trx) => {
    if (actor !== 'server') await member(trx, actor.organizationId, userId);
    const user = await trx.selectFrom('users').select(['id', 'email']).where('id', '=', userId).forUpdate().executeTakeFirst();
    if (!user) throw new PeopleError('Diese Person gehört nicht zu Ihrer Organisation.');
    const organizations = await trx.selectFrom('memberships').select('organization_id').where('user_id', '=', userId).orderBy('organization_id').execute();
    if (actor !== 'server' && organizations.some((o) => o.organization_id !== actor.organizationId))
      throw new PeopleError(
        `${user.email} gehört auch zu einer anderen Organisation; das Passwort kann nur die Person selbst ändern oder der Betreiber auf dem Server zurücksetzen.`,
      );
    await trx.updateTable('users').set({ password_hash: passwordHash, password_change_required: true }).where('id', '=', userId).execute();
    const ended = await endAllSessionsOf(trx, deps.clock.now(), userId);
    // A lock after failed sign-ins ends too: the person signs in with the new password at once.
    await trx
      .deleteFrom('sign_in_throttle')
      .where('key', '=', `account:${createHash('sha256').update(user.email).digest('hex')}`)
      .execute();
    const now = deps.clock.now();
    const audited =
      actor === 'server' ? organizations.map((o) => ({ userId, organizationId: o.organization_id, companyId: null })) : [{ ...actor, companyId: null }];
    for (const who of audited) {
      await recordAudit(trx, who, now, {
        action: 'person.password_reset',
        subjectType: 'user',
        subjectId: userId,
        after: { sessions_ended: ended, ...(actor === 'server' ? { by: 'server' } : {}) },
      });
    }
    return { userId, email: user.email, oneTimePassword: password, sessionsEnded: ended };
  });
}

/** Ends every open session of the person (the app's sessions table; web/session/sessions.ts reads it). */
async function endAllSessionsOf(trx: Trx, now: Date, userId: string): Promise<number> {
  const result = await trx
    .updateTable('app_sessions')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
