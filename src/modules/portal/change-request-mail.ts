import type { Database } from '../../db/connection.ts';
import type { SmtpSettings } from '../../db/schema.ts';
import type { PartnerChangeKind, PartnerChangeValues } from '../../db/schema-portal.ts';
import { defineJob, type Job, type JobContext, PermanentJobError, sendJobMail } from '../../jobs/index.ts';
import { mailHtml } from '../mail/index.ts';
import { KIND_GERMAN, valuesLine } from './change-request-values.ts';

// The mails of a partner's change request, each a job queued in the transaction of its step:
// the company hears of every request (please confirm in the app), of a withdrawal and of a
// confirmation (a payout account's by the payout-account notice, payout-account.ts); the
// partner gets a receipt of its request and hears of the confirmation or the rejection with
// its reason. The IBAN appears masked only: the request's row holds nothing else to show.

export const CHANGE_COMPANY_MAIL_JOB = 'portal.change_request_company_mail';
export const CHANGE_PARTNER_MAIL_JOB = 'portal.change_request_partner_mail';

export type ChangeCompanyMail = { request_id: string; event: 'requested' | 'confirmed' | 'withdrawn'; by: string; at: string; superseded: boolean };
export type ChangePartnerMail = { request_id: string; event: 'requested' | 'confirmed' | 'rejected'; at: string };

const base = { request_id: { type: 'string' }, at: { type: 'string' } } as const;

async function requestOf(db: Database, job: Job<{ request_id: string }>) {
  const companyId = job.company_id;
  if (!companyId) throw new PermanentJobError('the job names no company');
  const row = await db
    .selectFrom('partner_change_requests as r')
    .innerJoin('companies as c', 'c.id', 'r.company_id')
    .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 'r.company_id').onRef('p.id', '=', 'r.partner_id'))
    .innerJoin('partner_accounts as a', (join) => join.onRef('a.company_id', '=', 'r.company_id').onRef('a.id', '=', 'r.account_id'))
    .select(['r.kind', 'r.requested', 'r.current', 'r.decision_note', 'r.partner_id', 'a.email as account_email'])
    .select(['c.name as company_name', 'c.email as company_email', 'c.smtp', 'c.timezone', 'p.name as partner_name', 'p.kreditorennummer'])
    .where('r.company_id', '=', companyId)
    .where('r.id', '=', job.payload.request_id)
    .executeTakeFirst();
  if (!row) throw new PermanentJobError('the change request is gone');
  const kind = row.kind as PartnerChangeKind;
  return {
    ...row,
    kind,
    company: { id: companyId, name: row.company_name, email: row.company_email, smtp: row.smtp as SmtpSettings | null },
    was: valuesLine(kind, row.current as PartnerChangeValues, 'keine Angabe'),
    asked: valuesLine(kind, row.requested as PartnerChangeValues, 'keine Angabe'),
    what: KIND_GERMAN[kind],
  };
}

async function send<P>(
  context: JobContext<P>,
  to: 'company' | 'partner',
  request: Awaited<ReturnType<typeof requestOf>>,
  subject: string,
  paragraphs: string[][],
) {
  const { mailer, job } = context;
  const messageId = `<change-request-${to}-${job.id}@kontor.invalid>`;
  const footer = `${request.company_name} · ${request.company_email}`;
  await sendJobMail(
    mailer,
    request.company,
    {
      to: to === 'company' ? request.company_email : request.account_email,
      subject,
      text: `${paragraphs.map((lines) => lines.join('\n')).join('\n\n')}${to === 'partner' ? `\n\n-- \n${footer}` : ''}\n`,
      html: mailHtml(paragraphs, to === 'partner' ? [footer] : []),
      attachments: [],
      messageId,
    },
    'change request mail',
    `the ${to}`,
  );
}

const capital = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

const whenOf = (at: string, timezone: string) =>
  new Intl.DateTimeFormat('de-DE', { dateStyle: 'long', timeStyle: 'short', timeZone: timezone }).format(new Date(at));

defineJob<ChangeCompanyMail>({
  name: CHANGE_COMPANY_MAIL_JOB,
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['request_id', 'event', 'by', 'at', 'superseded'],
    properties: { ...base, event: { enum: ['requested', 'confirmed', 'withdrawn'] }, by: { type: 'string' }, superseded: { type: 'boolean' } },
  },
  async handler(context) {
    const { job } = context;
    const r = await requestOf(context.db, job);
    const when = whenOf(job.payload.at, r.timezone);
    const partner = `${r.partner_name} (Kreditor ${r.kreditorennummer})`;
    const values = [`Bisher: ${r.was}`, `Beantragt: ${r.asked}`];
    if (job.payload.event === 'requested') {
      const paragraphs = [
        [`Der Partner ${partner} hat am ${when} im Partnerportal (${job.payload.by}) beantragt, ${r.what.his} zu ändern.`, ...values],
        ...(job.payload.superseded ? [['Der Antrag ersetzt seinen früheren, noch offenen Antrag dieser Art.']] : []),
        [
          'Bis zur Bestätigung ändert sich nichts. Bitte prüfen Sie den Antrag und bestätigen oder lehnen Sie ihn in Kontor ab (nur ein Administrator):',
          `/app/partners/${r.partner_id}`,
        ],
      ];
      return send(context, 'company', r, `${r.partner_name} beantragt eine Änderung: ${r.what.name}`, paragraphs);
    }
    if (job.payload.event === 'withdrawn')
      return send(context, 'company', r, `${r.partner_name} hat seinen Antrag zurückgezogen: ${r.what.name}`, [
        [`Der Partner ${partner} hat am ${when} im Partnerportal (${job.payload.by}) seinen Antrag zurückgezogen, ${r.what.his} zu ändern.`, ...values],
        ['Es ändert sich nichts.'],
      ]);
    return send(context, 'company', r, `${r.what.name} von ${r.partner_name} geändert`, [
      [`${capital(r.what.the)} des Partners ${partner} wurde am ${when} auf seinen Antrag im Partnerportal von ${job.payload.by} bestätigt und geändert.`],
      [`Vorher: ${r.was}`, `Jetzt: ${r.asked}`],
    ]);
  },
});

defineJob<ChangePartnerMail>({
  name: CHANGE_PARTNER_MAIL_JOB,
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['request_id', 'event', 'at'],
    properties: { ...base, event: { enum: ['requested', 'confirmed', 'rejected'] } },
  },
  async handler(context) {
    const { job } = context;
    const r = await requestOf(context.db, job);
    const when = whenOf(job.payload.at, r.timezone);
    const greeting = [`Guten Tag ${r.partner_name},`];
    const closing = ['Mit freundlichen Grüßen', r.company_name];
    if (job.payload.event === 'requested')
      return send(context, 'partner', r, `Ihr Antrag: ${r.what.name} ändern`, [
        greeting,
        [`Sie haben am ${when} im Partnerportal beantragt, ${r.what.your} zu ändern.`, `Bisher: ${r.was}`, `Beantragt: ${r.asked}`],
        [`${r.company_name} prüft und bestätigt die Änderung; bis dahin bleibt alles wie bisher. Sie erhalten eine E-Mail, sobald entschieden ist.`],
        ['Haben Sie das nicht beantragt, wenden Sie sich bitte umgehend an uns.'],
        closing,
      ]);
    if (job.payload.event === 'confirmed')
      return send(context, 'partner', r, `Bestätigt: ${r.what.name} geändert`, [
        greeting,
        [`${r.company_name} hat am ${when} Ihren Antrag bestätigt. Ab jetzt gilt als ${r.what.name}: ${r.asked}`],
        ['Haben Sie das nicht beantragt, wenden Sie sich bitte umgehend an uns.'],
        closing,
      ]);
    return send(context, 'partner', r, `Abgelehnt: ${r.what.name} ändern`, [
      greeting,
      [`${r.company_name} hat am ${when} Ihren Antrag abgelehnt, ${r.what.your} zu ändern. Es bleibt bei: ${r.was}`],
      [`Begründung: ${r.decision_note ?? ''}`],
      closing,
    ]);
  },
});
