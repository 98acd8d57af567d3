import type { SmtpSettings } from '../../db/schema.ts';
import { defineJob, PermanentJobError, sendJobMail } from '../../jobs/index.ts';
import { formatDate, formatMoney } from '../../shared/german-format.ts';
import { formatCents } from '../../shared/money.ts';
import { mailHtml } from '../mail/index.ts';

// The company hears of every invoice a partner hands in through the portal and Kontor
// accepts (issue 27 §3): a mail to the company's address with the file attached as it was
// received, queued with the invoice in its transaction. The request to invoice is payable
// from now on; the bookkeeping gets the document it books against.

export const PARTNER_INVOICE_NOTICE_JOB = 'statements.partner_invoice_notice';

export type PartnerInvoiceNoticePayload = { statement_id: string; upload_id: string; by: string; at: string };

const MEDIA_TYPES: Record<string, string> = { zugferd: 'application/pdf', pdf: 'application/pdf' };

defineJob<PartnerInvoiceNoticePayload>({
  name: PARTNER_INVOICE_NOTICE_JOB,
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['statement_id', 'upload_id', 'by', 'at'],
    properties: { statement_id: { type: 'string' }, upload_id: { type: 'string' }, by: { type: 'string' }, at: { type: 'string' } },
  },
  async handler({ db, job, mailer }) {
    const companyId = job.company_id;
    if (!companyId) throw new PermanentJobError('the job names no company');
    const row = await db
      .selectFrom('partner_invoice_uploads as u')
      .innerJoin('commission_statements as s', (join) => join.onRef('s.company_id', '=', 'u.company_id').onRef('s.id', '=', 'u.statement_id'))
      .innerJoin('commission_partner_invoices as i', (join) => join.onRef('i.company_id', '=', 's.company_id').onRef('i.statement_id', '=', 's.id'))
      .innerJoin('companies as c', 'c.id', 's.company_id')
      .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 's.company_id').onRef('p.id', '=', 's.partner_id'))
      .select([
        's.number as statement_number',
        'i.number',
        'i.invoice_date',
        'i.gross_cents',
        'u.file_name',
        'u.format',
        'u.content',
        'c.name as company_name',
        'c.email as company_email',
        'c.smtp',
        'p.name as partner_name',
        'p.kreditorennummer',
      ])
      .where('u.company_id', '=', companyId)
      .where('u.id', '=', job.payload.upload_id)
      .where('u.accepted', '=', true)
      .executeTakeFirst();
    if (!row?.content) throw new PermanentJobError('the accepted upload is gone');
    const company = { id: companyId, name: row.company_name, email: row.company_email, smtp: row.smtp as SmtpSettings | null };
    const messageId = `<partner-invoice-${job.id}@kontor.invalid>`;
    const lines = [
      `${row.partner_name} (Kreditor ${row.kreditorennummer}) hat im Partnerportal seine Rechnung ${row.number} vom ${formatDate(row.invoice_date)} über ${formatMoney(formatCents(Number(row.gross_cents)))} zur Bitte um Rechnungsstellung ${row.statement_number} eingereicht (${job.payload.by}).`,
      'Kontor hat sie gelesen, gegen die Abrechnung geprüft und gebucht; die Abrechnung kann jetzt ausgezahlt werden. Die Rechnung hängt an, so wie sie eingereicht wurde.',
    ];
    await sendJobMail(
      mailer,
      company,
      {
        to: row.company_email,
        subject: `Rechnung ${row.number} von ${row.partner_name} eingegangen`,
        text: `${lines.join('\n')}\n`,
        html: mailHtml([lines], []),
        attachments: [{ filename: row.file_name, content: Buffer.from(row.content), contentType: MEDIA_TYPES[row.format ?? ''] ?? 'application/xml' }],
        messageId,
      },
      'partner invoice notice',
    );
  },
});
