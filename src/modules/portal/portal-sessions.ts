import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../../db/connection.ts';
import type { Trx } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';

// Sessions of the partner portal (issue 27 §1), in a table of their own (portal_sessions):
// a portal session names a partner account, never a person, so nothing that looks up the
// app's sessions or the API's keys can ever find one. As strict as the app's: the cookie
// holds a random token and the table its SHA-256; a session ends IDLE_MS after its last
// request or ABSOLUTE_MS after sign-in, at sign-out, and when the company deactivates the
// account (deactivatePartnerAccount ends them; the look-up also checks the account).

export const PORTAL_IDLE_MS = 60 * 60 * 1000;
export const PORTAL_ABSOLUTE_MS = 12 * 60 * 60 * 1000;
/** last_seen_at is written at most this often. */
const TOUCH_MS = 60 * 1000;

/** Who a portal request acts for: the account, its partner and its company, nothing else. */
export type PortalSession = {
  id: string;
  csrfToken: string;
  accountId: string;
  email: string;
  companyId: string;
  companyName: string;
  organizationId: string;
  timezone: string;
  partnerId: string;
  partnerName: string;
};

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/** Starts a session for the account; returns the cookie's token. */
export async function startPortalSession(db: Database | Trx, clock: Clock, account: { company_id: string; id: string }): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const now = clock.now();
  await db
    .insertInto('portal_sessions')
    .values({
      id: tokenHash(token),
      company_id: account.company_id,
      account_id: account.id,
      csrf_token: randomBytes(32).toString('base64url'),
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + PORTAL_ABSOLUTE_MS),
      revoked_at: null,
    })
    .execute();
  return token;
}

/** The live session of a cookie token, or null (unknown, ended, idle, past its end, account deactivated). */
export async function findPortalSession(db: Database, clock: Clock, token: string | undefined): Promise<PortalSession | null> {
  if (!token || token.length > 100) return null;
  const id = tokenHash(token);
  const row = await db
    .selectFrom('portal_sessions as s')
    .innerJoin('partner_accounts as a', (join) => join.onRef('a.company_id', '=', 's.company_id').onRef('a.id', '=', 's.account_id'))
    .innerJoin('companies as c', 'c.id', 's.company_id')
    .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 'a.company_id').onRef('p.id', '=', 'a.partner_id'))
    .select([
      's.csrf_token',
      's.last_seen_at',
      's.expires_at',
      's.revoked_at',
      'a.id as account_id',
      'a.email',
      'a.active',
      'a.password_hash',
      'c.id as company_id',
      'c.name as company_name',
      'c.organization_id',
      'c.timezone',
      'p.id as partner_id',
      'p.name as partner_name',
    ])
    .where('s.id', '=', id)
    .executeTakeFirst();
  if (!row || row.revoked_at || !row.active || row.password_hash === null) return null;
  const now = clock.now().getTime();
  if (row.expires_at.getTime() <= now || row.last_seen_at.getTime() + PORTAL_IDLE_MS <= now) return null;
  if (now - row.last_seen_at.getTime() >= TOUCH_MS) {
    await db.updateTable('portal_sessions').set({ last_seen_at: clock.now() }).where('id', '=', id).execute();
  }
  return {
    id,
    csrfToken: row.csrf_token,
    accountId: row.account_id,
    email: row.email,
    companyId: row.company_id,
    companyName: row.company_name,
    organizationId: row.organization_id,
    timezone: row.timezone,
    partnerId: row.partner_id,
    partnerName: row.partner_name,
  };
}

export async function endPortalSession(db: Database, clock: Clock, sessionId: string): Promise<void> {
  await db.updateTable('portal_sessions').set({ revoked_at: clock.now() }).where('id', '=', sessionId).where('revoked_at', 'is', null).execute();
}

/** Ends every session of the account (deactivation, a new password); keeps `except`. */
export async function endPortalSessions(db: Database | Trx, clock: Clock, companyId: string, accountId: string, except?: string): Promise<number> {
  let query = db
    .updateTable('portal_sessions')
    .set({ revoked_at: clock.now() })
    .where('company_id', '=', companyId)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null);
  if (except) query = query.where('id', '<>', except);
  return Number((await query.executeTakeFirst()).numUpdatedRows);
}
