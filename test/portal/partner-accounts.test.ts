import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runDueWork } from '../../src/jobs/index.ts';
import { listAudit } from '../../src/modules/audit/audit-log.ts';
import { createMailer } from '../../src/modules/mail/index.ts';
import {
  acceptPartnerInvitation,
  deactivatePartnerAccount,
  invitationAccount,
  invitePartnerAccount,
  PortalError,
  type PortalRefusal,
  partnerAccounts,
  verifyPartnerPassword,
} from '../../src/modules/portal/index.ts';
import { putPartner } from '../commissions/helpers.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { outboxMails } from '../helpers/outbox.ts';

// Issue 27 §1: partner accounts of the portal, invited by a person of the company with a
// link valid 7 days and usable once, through which the partner chooses its password.

const PORTAL_URL = 'https://kontor.example.de/portal';

const refused = (refusal: PortalRefusal) => (error: unknown) => error instanceof PortalError && error.refusal === refusal;

describe('partner accounts of the portal', () => {
  let t: TestApp;
  let deps: { db: TestApp['handle']['db']; clock: TestApp['clock']; sealer: typeof sealer };
  let actor: { userId: string; organizationId: string; companyId: string };
  let partnerId: string;
  before(async () => {
    t = await testApp();
    deps = { db: t.handle.db, clock: t.clock, sealer };
    actor = { userId: t.company.userId, organizationId: t.company.organizationId, companyId: t.company.companyId };
    partnerId = await putPartner(t, 'portal-1', { email: 'vertrieb@partner.example' });
  });
  after(() => t.close());

  const invite = (email: string, partner = partnerId, companyId = t.company.companyId) =>
    invitePartnerAccount(deps, { ...actor, companyId }, { companyId, partnerId: partner, email, portalUrl: PORTAL_URL });

  test('invited, the partner chooses a password through the link once; then the address and password open its account', async () => {
    const invitation = await invite('  Anna@Partner.Example ');
    assert.equal(invitation.email, 'anna@partner.example');
    assert.equal(invitation.expires_at.toISOString(), '2026-11-28T10:00:00.000Z', '7 days from now');
    assert.ok(invitation.token.length >= 40);
    assert.equal(invitation.invitation_url, `${PORTAL_URL}/invitation/${invitation.token}`);
    const pending = await invitationAccount(t.handle.db, t.clock, invitation.token);
    assert.equal(pending?.partner_id, partnerId);
    assert.equal(pending?.activated_at, null);
    assert.equal(await verifyPartnerPassword(t.handle.db, 'anna@partner.example', ''), null, 'no password before the invitation is accepted');

    await assert.rejects(acceptPartnerInvitation(deps, { token: invitation.token, password: 'kurz', repeat: 'kurz' }), refused('password_too_short'));
    await assert.rejects(
      acceptPartnerInvitation(deps, { token: invitation.token, password: 'ein langes Passwort', repeat: 'ein anderes Passwort' }),
      refused('password_mismatch'),
    );
    const account = await acceptPartnerInvitation(deps, { token: invitation.token, password: 'ein langes Passwort', repeat: 'ein langes Passwort' });
    assert.equal(account.id, invitation.account_id);
    assert.ok(account.activated_at);
    await assert.rejects(
      acceptPartnerInvitation(deps, { token: invitation.token, password: 'noch ein Passwort!', repeat: 'noch ein Passwort!' }),
      refused('invitation_invalid'),
      'the link is used',
    );
    assert.equal(await invitationAccount(t.handle.db, t.clock, invitation.token), null);

    const signedIn = await verifyPartnerPassword(t.handle.db, 'ANNA@partner.example', 'ein langes Passwort');
    assert.equal(signedIn?.id, account.id);
    assert.equal(signedIn?.company_id, t.company.companyId);
    assert.equal(await verifyPartnerPassword(t.handle.db, 'anna@partner.example', 'ein falsches Passwort'), null);
    assert.equal(await verifyPartnerPassword(t.handle.db, 'niemand@partner.example', 'ein langes Passwort'), null);
    await assert.rejects(invite('anna@partner.example'), refused('already_active'));

    // The partner's own step is in the trail under its account, the invitation under the person.
    const trail = await listAudit(t.handle.db, t.company.organizationId, t.company.companyId);
    const activated = trail.find((e) => e.action === 'partner.portal_activated');
    assert.equal(activated?.actor, 'partner');
    assert.equal(activated?.email, 'anna@partner.example');
    assert.equal(activated?.subject_id, partnerId);
    const invited = trail.find((e) => e.action === 'partner.portal_invited');
    assert.equal(invited?.actor, 'person');
    assert.equal(invited?.email, t.company.adminEmail);
    assert.deepEqual(invited?.after, { email: 'anna@partner.example', expires_at: '2026-11-28T10:00:00.000Z' });
    assert.equal(JSON.stringify(trail).includes('ein langes Passwort'), false, 'no password in the trail');
  });

  test('a link past its 7 days, or superseded by a newer invitation, opens nothing', async () => {
    const first = await invite('bernd@partner.example');
    const second = await invite('bernd@partner.example');
    assert.equal(second.account_id, first.account_id, 'the same account, invited again');
    await assert.rejects(
      acceptPartnerInvitation(deps, { token: first.token, password: 'ein langes Passwort', repeat: 'ein langes Passwort' }),
      refused('invitation_invalid'),
    );
    const now = t.clock.now();
    t.clock.set(second.expires_at);
    try {
      await assert.rejects(
        acceptPartnerInvitation(deps, { token: second.token, password: 'ein langes Passwort', repeat: 'ein langes Passwort' }),
        refused('invitation_invalid'),
      );
      await assert.rejects(
        acceptPartnerInvitation(deps, { token: 'x'.repeat(43), password: 'ein langes Passwort', repeat: 'ein langes Passwort' }),
        refused('invitation_invalid'),
        'an unknown link',
      );
    } finally {
      t.clock.set(now);
    }
  });

  test('refusals: another company’s partner, a taken address, a malformed address; nothing is written', async () => {
    const other = await t.newCompany('other');
    const otherPartner = await putPartnerOf(other.apiKey, 'portal-other');
    const before = await partnerAccounts(t.handle.db, t.company.companyId, partnerId);
    await assert.rejects(invite('carla@partner.example', otherPartner), refused('partner_not_found'));
    await assert.rejects(invite('kein-mail'), refused('invalid_email'));
    await invite('dora@partner.example');
    const secondPartner = await putPartner(t, 'portal-2');
    await assert.rejects(invite('dora@partner.example', secondPartner), refused('email_taken'));
    await assert.rejects(
      invitePartnerAccount(
        deps,
        { userId: other.userId, organizationId: other.organizationId, companyId: other.companyId },
        {
          companyId: other.companyId,
          partnerId: otherPartner,
          email: 'DORA@partner.example',
          portalUrl: PORTAL_URL,
        },
      ),
      refused('email_taken'),
      'one account per address, across companies',
    );
    const now = await partnerAccounts(t.handle.db, t.company.companyId, partnerId);
    assert.deepEqual(
      now.map((a) => a.email),
      [...before.map((a) => a.email), 'dora@partner.example'],
    );
    assert.deepEqual(await partnerAccounts(t.handle.db, t.company.companyId, secondPartner), []);
  });

  test('deactivated by the company: the password and the open link no longer open it; invited again, a new password is chosen', async () => {
    const invitation = await invite('emil@partner.example');
    await acceptPartnerInvitation(deps, { token: invitation.token, password: 'Emils Passwort 1', repeat: 'Emils Passwort 1' });
    const again = await invite('emil@partner.example').catch((e) => e);
    assert.ok(refused('already_active')(again));

    assert.equal(await deactivatePartnerAccount(deps, actor, t.company.companyId, invitation.account_id), true);
    assert.equal(await deactivatePartnerAccount(deps, actor, t.company.companyId, invitation.account_id), false, 'once');
    assert.equal(await verifyPartnerPassword(t.handle.db, 'emil@partner.example', 'Emils Passwort 1'), null);
    await assert.rejects(deactivatePartnerAccount(deps, actor, t.company.companyId, 'pac_unknown'), refused('account_not_found'));

    const reinvited = await invite('emil@partner.example');
    assert.equal(reinvited.account_id, invitation.account_id);
    assert.equal(await verifyPartnerPassword(t.handle.db, 'emil@partner.example', 'Emils Passwort 1'), null, 'the old password is gone');
    await acceptPartnerInvitation(deps, { token: reinvited.token, password: 'Emils Passwort 2', repeat: 'Emils Passwort 2' });
    assert.equal((await verifyPartnerPassword(t.handle.db, 'emil@partner.example', 'Emils Passwort 2'))?.id, invitation.account_id);
    const trail = await listAudit(t.handle.db, t.company.organizationId, t.company.companyId, { limit: 200 });
    assert.equal(trail.filter((e) => e.action === 'partner.portal_deactivated').length, 1);
  });

  test('the link is mailed from the company’s mailbox, once; a superseded link is not mailed; the job holds the token only sealed', async () => {
    const outbox = () => outboxMails(t.dataDir, t.company.companyId);
    const work = () =>
      runDueWork(
        { db: t.handle.db, clock: t.clock, mailer: createMailer({ dataDir: t.dataDir, sealer }), services: { portal: { sealer } } },
        { asOf: '2026-11-21', companyId: t.company.companyId, log: () => {} },
      );
    await work();
    const before = outbox().length;
    const superseded = await invite('frieda@partner.example');
    const invitation = await invite('frieda@partner.example');
    const jobs = await t.handle.db.selectFrom('jobs').select('payload').where('name', '=', 'portal.invitation_mail').execute();
    assert.equal(JSON.stringify(jobs).includes(invitation.token), false, 'no token in the clear in the jobs table');
    await work();
    await work();
    const mails = outbox().slice(before);
    assert.equal(mails.length, 1, 'one mail: the superseded link is not mailed, the valid one once');
    const mail = mails[0]!;
    assert.match(mail, /^To: frieda@partner\.example/m);
    assert.match(mail, /^Subject: Einladung in das Partnerportal von main GmbH/m);
    assert.ok(mail.includes(invitation.invitation_url), 'the mail carries the link');
    assert.equal(mail.includes(superseded.token), false);
    assert.match(mail, /gilt bis 28\. November 2026 um 11:00/);
  });

  test('the audit trail stays append-only with partner rows, and every row has exactly one actor', async () => {
    await assert.rejects(t.handle.db.updateTable('audit_log').set({ action: 'x' }).execute(), /append-only/);
    await assert.rejects(
      t.handle.db
        .insertInto('audit_log')
        .values({
          organization_id: t.company.organizationId,
          id: 'aud_two_actors',
          company_id: t.company.companyId,
          user_id: t.company.userId,
          partner_account_id: 'pac_x',
          at: t.clock.now(),
          action: 'x.y',
          subject_type: 'partner',
          subject_id: null,
          before: null,
          after: null,
        })
        .execute(),
      /audit_log_one_actor/,
    );
  });

  async function putPartnerOf(apiKey: string, ref: string): Promise<string> {
    const res = await t.request('PUT', `/v1/commission-partners/by-ref/crm/${ref}`, { key: apiKey, body: { name: `Partner ${ref}` } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().id;
  }
});
