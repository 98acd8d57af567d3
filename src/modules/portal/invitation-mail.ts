import type { SmtpSettings } from '../../db/schema.ts';
import { defineJob, PermanentJobError, sendJobMail } from '../../jobs/index.ts';
import type { Sealer } from '../../shared/secrets.ts';
import { mailHtml } from '../mail/index.ts';
import { INVITATION_MAIL_JOB, type InvitationMailPayload, invitationUrl } from './invitation-link.ts';
import { invitationAccount } from './partner-accounts.ts';

// Job `portal.invitation_mail`, enqueued in the invitation's transaction: mails the partner
// its invitation link from the company's mailbox. The link's token travels in the job's
// payload sealed with the instance secret (the database alone opens no account); the job
// opens it with the process's sealer (JobServices.portal). A link that is no longer valid
// when the job runs (used, superseded, deactivated, past its 7 days) is not mailed.

declare module '../../jobs/registry.ts' {
  interface JobServices {
    /** The instance secret's sealer, for the invitation links (serve, worker, jobs run). */
    portal?: { sealer: Sealer };
  }
}

defineJob<InvitationMailPayload>({
  name: INVITATION_MAIL_JOB,
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['account_id', 'sealed_token', 'portal_url'],
    properties: { account_id: { type: 'string' }, sealed_token: { type: 'string' }, portal_url: { type: 'string' } },
  },
  async handler({ db, clock, job, mailer, services, log }) {
    const companyId = job.company_id;
    if (!companyId) throw new PermanentJobError('the job names no company');
    if (!mailer) throw new Error('this process has no mailer');
    if (!services.portal) throw new Error('this process has no sealer for invitation links');
    const token = services.portal.sealer.open(job.payload.sealed_token);
    const account = await invitationAccount(db, clock, token);
    if (!account || account.id !== job.payload.account_id) {
      log('the invitation link is no longer valid; not mailed');
      return;
    }
    const row = await db
      .selectFrom('companies as c')
      .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 'c.id'))
      .select(['c.name as company_name', 'c.email as company_email', 'c.smtp', 'c.timezone', 'p.name as partner_name'])
      .where('c.id', '=', companyId)
      .where('p.id', '=', account.partner_id)
      .executeTakeFirstOrThrow();
    const company = { id: companyId, name: row.company_name, email: row.company_email, smtp: row.smtp as SmtpSettings | null };
    const messageId = `<portal-invitation-${job.id}@kontor.invalid>`;
    const until = new Intl.DateTimeFormat('de-DE', { dateStyle: 'long', timeStyle: 'short', timeZone: row.timezone }).format(account.expires_at);
    const link = invitationUrl(job.payload.portal_url, token);
    const paragraphs = [
      [`Guten Tag ${row.partner_name},`],
      [
        `${row.company_name} lädt Sie in das Partnerportal ein. Dort sehen Sie Ihre Provisionen, Gutschriften und Auszahlungen und können Ihre Rechnungen einreichen.`,
      ],
      ['Über diesen Link legen Sie Ihr Passwort fest:', link],
      [`Der Link gilt bis ${until} und nur einmal. Haben Sie diese Einladung nicht erwartet, können Sie diese E-Mail ignorieren.`],
      ['Mit freundlichen Grüßen', row.company_name],
    ];
    await sendJobMail(
      mailer,
      company,
      {
        to: account.email,
        subject: `Einladung in das Partnerportal von ${row.company_name}`,
        text: `${paragraphs.map((lines) => lines.join('\n')).join('\n\n')}\n\n-- \n${row.company_name} · ${row.company_email}\n`,
        html: mailHtml(paragraphs, [`${row.company_name} · ${row.company_email}`]),
        attachments: [],
        messageId,
      },
      'portal invitation',
      'the partner account',
    );
  },
});
