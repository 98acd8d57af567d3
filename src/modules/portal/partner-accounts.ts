import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../../db/connection.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import { enqueueJob } from '../../jobs/index.ts';
import type { Clock } from '../../shared/clock.ts';
import { isEmailAddress, MAX_EMAIL_LENGTH } from '../../shared/email.ts';
import { newId } from '../../shared/ids.ts';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordLengthAllowed, verifySignInPassword } from '../../shared/passwords.ts';
import type { Sealer } from '../../shared/secrets.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { INVITATION_MAIL_JOB, type InvitationMailPayload, invitationUrl } from './invitation-link.ts';
import { PortalError } from './portal-error.ts';
import { endPortalSessions } from './portal-sessions.ts';

// Partner accounts of the portal (issue 27 §1). A person of the company invites a partner
// by e-mail address: Kontor makes the partner's account (one per address in the
// installation) and an invitation link, valid INVITATION_DAYS and usable once, through
// which the partner chooses a password. The link's token is shown (and mailed) once; the
// database holds only its SHA-256, so a copy of the database opens no account. A newer
// invitation supersedes the older ones; deactivating the account ends them all. Every
// step is in the company's audit trail: the company's by its person, the partner's own by
// its partner account.

export const INVITATION_DAYS = 7;

export type PartnerInvitation = {
  account_id: string;
  email: string;
  /** The link's secret part. Shown once. */
  token: string;
  /** The link the partner opens (`<portal_url>/invitation/<token>`); mailed to the partner. */
  invitation_url: string;
  expires_at: Date;
};

export type PartnerAccount = {
  company_id: string;
  id: string;
  partner_id: string;
  email: string;
  active: boolean;
  /** The partner has chosen a password (the invitation was accepted). */
  activated_at: Date | null;
  created_at: Date;
  deactivated_at: Date | null;
};

const ACCOUNT_COLUMNS = ['company_id', 'id', 'partner_id', 'email', 'active', 'activated_at', 'created_at', 'deactivated_at'] as const;

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

async function organizationOf(trx: Trx, companyId: string): Promise<string> {
  return (await trx.selectFrom('companies').select('organization_id').where('id', '=', companyId).executeTakeFirstOrThrow()).organization_id;
}

async function supersedeInvitations(trx: Trx, companyId: string, accountId: string, now: Date): Promise<void> {
  await trx
    .updateTable('partner_invitations')
    .set({ superseded_at: now })
    .where('company_id', '=', companyId)
    .where('account_id', '=', accountId)
    .where('accepted_at', 'is', null)
    .where('superseded_at', 'is', null)
    .execute();
}

/**
 * Invites the company's partner to the portal under this address: makes its account (or
 * takes the partner's existing one with this address that is not set up yet, or
 * deactivated: then its old password no longer opens it) and a new invitation link, and
 * mails the link from the company's mailbox (job `portal.invitation_mail`, committed with
 * the invitation). `portalUrl`: where the portal is reached, e.g. https://kontor.example.de/portal.
 */
export async function invitePartnerAccount(
  deps: { db: Database; clock: Clock; sealer: Sealer },
  actor: Actor,
  input: { companyId: string; partnerId: string; email: string; portalUrl: string },
): Promise<PartnerInvitation> {
  const email = input.email.trim().toLowerCase();
  if (email.length > MAX_EMAIL_LENGTH || !isEmailAddress(email)) throw new PortalError(`not an e-mail address: ${input.email}`, 'invalid_email');
  const token = randomBytes(32).toString('base64url');
  return inTransaction(deps.db, async (trx) => {
    const now = deps.clock.now();
    const partner = await trx
      .selectFrom('commission_partners')
      .select('id')
      .where('company_id', '=', input.companyId)
      .where('id', '=', input.partnerId)
      .executeTakeFirst();
    if (!partner) throw new PortalError(`no partner ${input.partnerId} in company ${input.companyId}`, 'partner_not_found');
    const existing = await trx.selectFrom('partner_accounts').selectAll().where('email', '=', email).forUpdate().executeTakeFirst();
    if (existing && (existing.company_id !== input.companyId || existing.partner_id !== input.partnerId))
      throw new PortalError('the address belongs to another partner account', 'email_taken');
    if (existing?.active && existing.password_hash !== null) throw new PortalError('the partner account is set up and active already', 'already_active');
    let accountId = existing?.id;
    if (existing) {
      await trx
        .updateTable('partner_accounts')
        .set({ active: true, password_hash: null, deactivated_at: null })
        .where('company_id', '=', existing.company_id)
        .where('id', '=', existing.id)
        .execute();
      await supersedeInvitations(trx, existing.company_id, existing.id, now);
    } else {
      // Two invitations of one address at once: the second finds the first's row taken.
      const made = await trx
        .insertInto('partner_accounts')
        .values({
          company_id: input.companyId,
          id: newId('pac'),
          partner_id: input.partnerId,
          email,
          password_hash: null,
          active: true,
          created_at: now,
          activated_at: null,
          deactivated_at: null,
        })
        .onConflict((oc) => oc.column('email').doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!made) throw new PortalError('the address belongs to another partner account', 'email_taken');
      accountId = made.id;
    }
    const expiresAt = new Date(now.getTime() + INVITATION_DAYS * 24 * 60 * 60 * 1000);
    await trx
      .insertInto('partner_invitations')
      .values({
        id: tokenHash(token),
        company_id: input.companyId,
        account_id: accountId as string,
        created_at: now,
        expires_at: expiresAt,
        accepted_at: null,
        superseded_at: null,
      })
      .execute();
    const payload: InvitationMailPayload = { account_id: accountId as string, sealed_token: deps.sealer.seal(token), portal_url: input.portalUrl };
    await enqueueJob(trx, { name: INVITATION_MAIL_JOB, companyId: input.companyId, payload, runAt: now });
    await recordAudit(trx, actor, now, {
      action: 'partner.portal_invited',
      subjectType: 'partner',
      subjectId: input.partnerId,
      after: { email, expires_at: expiresAt.toISOString() },
    });
    return { account_id: accountId as string, email, token, invitation_url: invitationUrl(input.portalUrl, token), expires_at: expiresAt };
  });
}

/** The account an invitation link opens while it is valid (with the link's end), or null. */
export async function invitationAccount(db: Database, clock: Clock, token: string): Promise<(PartnerAccount & { expires_at: Date }) | null> {
  if (!token || token.length > 100) return null;
  const row = await db
    .selectFrom('partner_invitations as i')
    .innerJoin('partner_accounts as a', (join) => join.onRef('a.company_id', '=', 'i.company_id').onRef('a.id', '=', 'i.account_id'))
    .select([...ACCOUNT_COLUMNS.map((column) => `a.${column}` as const), 'i.expires_at'])
    .where('i.id', '=', tokenHash(token))
    .where('i.accepted_at', 'is', null)
    .where('i.superseded_at', 'is', null)
    .where('i.expires_at', '>', clock.now())
    .where('a.active', '=', true)
    .executeTakeFirst();
  return row ?? null;
}

/** The partner chooses its password through the invitation link; the link is then used. */
export async function acceptPartnerInvitation(
  deps: { db: Database; clock: Clock },
  input: { token: string; password: string; repeat: string },
): Promise<PartnerAccount> {
  if (input.password !== input.repeat) throw new PortalError('the two passwords differ', 'password_mismatch');
  if (!passwordLengthAllowed(input.password))
    throw new PortalError(`a password has ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`, 'password_too_short');
  if (!(await invitationAccount(deps.db, deps.clock, input.token))) throw new PortalError('the invitation link is not valid', 'invitation_invalid');
  const hash = await hashPassword(input.password);
  return inTransaction(deps.db, async (trx) => {
    const now = deps.clock.now();
    // Again under the invitation's row lock: two tabs accepting at once use it once.
    const invitation = await trx
      .selectFrom('partner_invitations')
      .select(['company_id', 'account_id'])
      .where('id', '=', tokenHash(input.token))
      .where('accepted_at', 'is', null)
      .where('superseded_at', 'is', null)
      .where('expires_at', '>', now)
      .forUpdate()
      .executeTakeFirst();
    if (!invitation) throw new PortalError('the invitation link is not valid', 'invitation_invalid');
    const account = await trx
      .updateTable('partner_accounts')
      .set((eb) => ({ password_hash: hash, activated_at: eb.fn.coalesce('activated_at', eb.val(now)) }))
      .where('company_id', '=', invitation.company_id)
      .where('id', '=', invitation.account_id)
      .where('active', '=', true)
      .returning(ACCOUNT_COLUMNS)
      .executeTakeFirst();
    if (!account) throw new PortalError('the invitation link is not valid', 'invitation_invalid');
    await trx.updateTable('partner_invitations').set({ accepted_at: now }).where('id', '=', tokenHash(input.token)).execute();
    await recordAudit(
      trx,
      { partnerAccountId: account.id, organizationId: await organizationOf(trx, account.company_id), companyId: account.company_id },
      now,
      { action: 'partner.portal_activated', subjectType: 'partner', subjectId: account.partner_id, after: { email: account.email } },
    );
    return account;
  });
}

/**
 * The active, set-up account of this address when the password is right, else null. An
 * unknown address costs the same work (a dummy hash), so the answer's time tells nothing.
 */
export async function verifyPartnerPassword(db: Database, email: string, password: string): Promise<PartnerAccount | null> {
  const row = await db
    .selectFrom('partner_accounts')
    .select([...ACCOUNT_COLUMNS, 'password_hash'])
    .where('email', '=', email.trim().toLowerCase())
    .where('active', '=', true)
    .where('password_hash', 'is not', null)
    .executeTakeFirst();
  const good = await verifySignInPassword(password, row?.password_hash);
  if (!row || !good) return null;
  const { password_hash: _, ...account } = row;
  return account;
}

/** Deactivates the account (its password and links no longer open it); false when it was inactive already. */
export async function deactivatePartnerAccount(deps: { db: Database; clock: Clock }, actor: Actor, companyId: string, accountId: string): Promise<boolean> {
  return inTransaction(deps.db, async (trx) => {
    const now = deps.clock.now();
    const account = await trx
      .selectFrom('partner_accounts')
      .select(['partner_id', 'email', 'active'])
      .where('company_id', '=', companyId)
      .where('id', '=', accountId)
      .forUpdate()
      .executeTakeFirst();
    if (!account) throw new PortalError(`no partner account ${accountId} in company ${companyId}`, 'account_not_found');
    if (!account.active) return false;
    await trx
      .updateTable('partner_accounts')
      .set({ active: false, deactivated_at: now })
      .where('company_id', '=', companyId)
      .where('id', '=', accountId)
      .execute();
    await supersedeInvitations(trx, companyId, accountId, now);
    await endPortalSessions(trx, deps.clock, companyId, accountId);
    await recordAudit(trx, actor, now, {
      action: 'partner.portal_deactivated',
      subjectType: 'partner',
      subjectId: account.partner_id,
      before: { email: account.email, active: true },
      after: { active: false },
    });
    return true;
  });
}

/** The partner's accounts, oldest first. */
export function partnerAccounts(db: Database, companyId: string, partnerId: string): Promise<PartnerAccount[]> {
  return db
    .selectFrom('partner_accounts')
    .select(ACCOUNT_COLUMNS)
    .where('company_id', '=', companyId)
    .where('partner_id', '=', partnerId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export type PortalPasswordChange = { ok: true } | { ok: false; reason: 'wrong_current' | 'too_short' | 'same_as_current' | 'mismatch' };

/** The partner changes its password (the app's rules); every other portal session of the account ends. */
export async function changePartnerPassword(
  deps: { db: Database; clock: Clock },
  session: { id: string; companyId: string; accountId: string; organizationId: string; partnerId: string },
  input: { current: string; next: string; repeat: string },
): Promise<PortalPasswordChange> {
  const account = await deps.db
    .selectFrom('partner_accounts')
    .select('password_hash')
    .where('company_id', '=', session.companyId)
    .where('id', '=', session.accountId)
    .executeTakeFirstOrThrow();
  if (!(await verifySignInPassword(input.current.slice(0, MAX_PASSWORD_LENGTH), account.password_hash))) return { ok: false, reason: 'wrong_current' };
  if (input.next !== input.repeat) return { ok: false, reason: 'mismatch' };
  if (!passwordLengthAllowed(input.next)) return { ok: false, reason: 'too_short' };
  if (input.next === input.current) return { ok: false, reason: 'same_as_current' };
  const hash = await hashPassword(input.next);
  await inTransaction(deps.db, async (trx) => {
    await trx
      .updateTable('partner_accounts')
      .set({ password_hash: hash })
      .where('company_id', '=', session.companyId)
      .where('id', '=', session.accountId)
      .execute();
    const ended = await endPortalSessions(trx, deps.clock, session.companyId, session.accountId, session.id);
    await recordAudit(trx, { partnerAccountId: session.accountId, organizationId: session.organizationId, companyId: session.companyId }, deps.clock.now(), {
      action: 'partner.portal_password_changed',
      subjectType: 'partner',
      subjectId: session.partnerId,
      after: { other_sessions_ended: ended },
    });
  });
  return { ok: true };
}
