import type { SmtpSettings } from '../../db/schema.ts';
import { defineJob, PermanentJobError, sendJobMail } from '../../jobs/index.ts';
import { mailHtml } from '../mail/index.ts';

// The company hears of every objection to a Gutschrift (issue 27 §3), whoever recorded it —
// a person in the app or on the command line, or the partner in the portal: a mail to the
// company's address, queued with the objection in its transaction. The objection changes
// how the partner is billed from now on (requests to invoice instead of Gutschriften), so
// somebody at the company must read it.

export const OBJECTION_NOTICE_JOB = 'statements.objection_notice';

export type ObjectionNoticePayload = { statement_id: string; by: string; by_partner: boolean; reason: string | null; at: string };

defineJob<ObjectionNoticePayload>({
  name: OBJECTION_NOTICE_JOB,
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['statement_id', 'by', 'by_partner', 'reason', 'at'],
    properties: {
      statement_id: { type: 'string' },
      by: { type: 'string' },
      by_partner: { type: 'boolean' },
      reason: { type: ['string', 'null'] },
      at: { type: 'string' },
    },
  },
  async handler({ db, job, mailer }) {
    const companyId = job.company_id;
    if (!companyId) throw new PermanentJobError('the job names no company');
    const row = await db
      .selectFrom('commission_statements as s')
      .innerJoin('companies as c', 'c.id', 's.company_id')
      .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 's.company_id').onRef('p.id', '=', 's.partner_id'))
      .select(['s.number', 'c.name as company_name', 'c.email as company_email', 'c.smtp', 'c.timezone', 'p.name as partner_name', 'p.kreditorennummer'])
      .where('s.company_id', '=', companyId)
      .where('s.id', '=', job.payload.statement_id)
      .executeTakeFirst();
    if (!row) throw new PermanentJobError('the statement is gone');
    const company = { id: companyId, name: row.company_name, email: row.company_email, smtp: row.smtp as SmtpSettings | null };
    const messageId = `<objection-${job.id}@kontor.invalid>`;
    const when = new Intl.DateTimeFormat('de-DE', { dateStyle: 'long', timeStyle: 'short', timeZone: row.timezone }).format(new Date(job.payload.at));
    const who = job.payload.by_partner ? `vom Partner selbst im Partnerportal (${job.payload.by})` : `von ${job.payload.by}`;
    const lines = [
      `Der Partner ${row.partner_name} (Kreditor ${row.kreditorennummer}) hat der Gutschrift ${row.number} widersprochen; erfasst am ${when} ${who}.`,
      ...(job.payload.reason ? [`Begründung: ${job.payload.reason}`] : []),
      'Die Gutschrift gilt damit nicht mehr als Rechnung (§ 14 Abs. 2 Satz 3 UStG); ihre Provisionen sind wieder offen und ihre Buchung ist umgekehrt.',
      'Ab jetzt erhält der Partner statt Gutschriften eine Bitte um Rechnungsstellung und stellt seine Rechnung selbst.',
    ];
    await sendJobMail(
      mailer,
      company,
      {
        to: row.company_email,
        subject: `Widerspruch gegen die Gutschrift ${row.number} (${row.partner_name})`,
        text: `${lines.join('\n')}\n`,
        html: mailHtml([lines], []),
        attachments: [],
        messageId,
      },
      'objection notice',
    );
  },
});
