import type { Database } from '../../db/connection.ts';
import type { DunningLevel } from '../../db/schema-dunning.ts';
import { inTransaction } from '../../db/transaction.ts';
import { enqueueJob } from '../../jobs/index.ts';
import { type Clock, calendarDate } from '../../shared/clock.ts';
import { formatDate } from '../../shared/german-format.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { SEND_NOTICE_JOB } from './create-notices.ts';
import { OPEN_STATUSES } from './dunning.repository.ts';
import type { NoticeDocument } from './notice-document.ts';
import { noticeTitle } from './notice-document.ts';

// A person sends a failed dunning notice again (issue 15, design §7) once the cause is
// fixed (the customer's e-mail address, the company's mailbox): in one transaction the
// notice goes back to `pending` with the customer's e-mail address of now, the job
// `dunning.send_notice` is enqueued, and the audit row is written. The notice keeps its
// frozen amounts, date and deadline (and its PDF, when one is stored): it is the same letter.
// Refused while it would send something wrong: the invoice paid, cancelled or paid in part
// since the notice was made, a newer notice of the invoice, a deadline already over, or
// still no address.

export type RetryRefusalCode = 'notice_not_found' | 'not_failed' | 'invoice_closed' | 'amount_changed' | 'superseded' | 'deadline_passed' | 'recipient_missing';

/** A refusal with a German sentence (the command line prints it) and its values (the app words it in its language). */
export class RetryNoticeError extends Error {
  readonly code: RetryRefusalCode;
  readonly values: Record<string, string>;
  constructor(code: RetryRefusalCode, message: string, values: Record<string, string> = {}) {
    super(message);
    this.name = 'RetryNoticeError';
    this.code = code;
    this.values = values;
  }
}

export type RetriedNotice = { noticeId: string; invoiceId: string; invoiceNumber: string; level: DunningLevel; email: string };

export async function retryNotice(deps: { db: Database; clock: Clock }, companyId: string, noticeId: string, actor: Actor): Promise<RetriedNotice> {
  return inTransaction(deps.db, async (trx) => {
    const found = await trx
      .selectFrom('dunning_notices')
      .select(['invoice_id'])
      .where('company_id', '=', companyId)
      .where('id', '=', noticeId)
      .executeTakeFirst();
    if (!found) throw new RetryNoticeError('notice_not_found', 'Diese Mahnung gibt es nicht.');
    // The invoice row first, then the notice: the order the send job takes (send-notice.ts).
    const invoice = await trx
      .selectFrom('invoices as i')
      .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'i.company_id').onRef('c.id', '=', 'i.customer_id'))
      .select(['i.id', 'i.number', 'i.status', 'i.amount_paid_cents', 'c.email', 'c.name as customer_name'])
      .where('i.company_id', '=', companyId)
      .where('i.id', '=', found.invoice_id)
      .forNoKeyUpdate('i')
      .executeTakeFirstOrThrow();
    const notice = await trx
      .selectFrom('dunning_notices')
      .select(['id', 'level', 'status', 'reason', 'paid_cents', 'deadline', 'document', 'created_at'])
      .where('company_id', '=', companyId)
      .where('id', '=', noticeId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const number = invoice.number ?? invoice.id;
    const title = noticeTitle(notice.level);
    if (notice.status !== 'failed')
      throw new RetryNoticeError(
        'not_failed',
        `Die ${title} zu Rechnung ${number} ist nicht fehlgeschlagen; nur fehlgeschlagene Mahnungen lassen sich erneut senden.`,
        {
          number,
          status: notice.status,
        },
      );
    if (!OPEN_STATUSES.includes(invoice.status))
      throw new RetryNoticeError(
        'invoice_closed',
        invoice.status === 'paid'
          ? `Die Rechnung ${number} ist inzwischen bezahlt; die Mahnung wird nicht mehr versendet.`
          : `Die Rechnung ${number} ist inzwischen storniert; die Mahnung wird nicht mehr versendet.`,
        { number, status: invoice.status },
      );
    if (invoice.amount_paid_cents !== notice.paid_cents)
      throw new RetryNoticeError(
        'amount_changed',
        `Seit die Mahnung erstellt wurde, ist zu Rechnung ${number} eine Zahlung eingegangen; ihre Beträge stimmen nicht mehr. Der nächste Mahnlauf erstellt eine neue Mahnung über den offenen Rest.`,
        { number },
      );
    const newer = await trx
      .selectFrom('dunning_notices')
      .select('id')
      .where('company_id', '=', companyId)
      .where('invoice_id', '=', invoice.id)
      .where('id', '<>', notice.id)
      .where((eb) => eb.or([eb('status', 'in', ['pending', 'sent']).and('level', '>=', notice.level), eb('created_at', '>', notice.created_at)]))
      .limit(1)
      .executeTakeFirst();
    if (newer)
      throw new RetryNoticeError('superseded', `Zu Rechnung ${number} gibt es inzwischen eine neuere Mahnung; diese wird nicht mehr versendet.`, { number });
    const now = deps.clock.now();
    const company = await trx.selectFrom('companies').select('timezone').where('id', '=', companyId).executeTakeFirstOrThrow();
    if (notice.deadline < calendarDate(now, company.timezone))
      throw new RetryNoticeError(
        'deadline_passed',
        `Die Zahlungsfrist dieser Mahnung (${formatDate(notice.deadline)}) ist bereits abgelaufen. Der nächste Mahnlauf erstellt eine neue Mahnung mit aktuellem Stand.`,
        { number, deadline: notice.deadline },
      );
    const email = invoice.email?.trim() ?? '';
    if (email === '')
      throw new RetryNoticeError(
        'recipient_missing',
        `Für den Kunden ${invoice.customer_name} ist noch keine E-Mail-Adresse hinterlegt. Bitte ergänzen Sie sie in Ihrem eigenen System, aus dem Kontor die Kunden übernimmt (PUT /v1/customers/by-ref/…), und versuchen Sie es danach erneut.`,
        { customer: invoice.customer_name },
      );

    // The letter stays as it was made; only the address it is mailed to is the customer's of now.
    const document = notice.document as NoticeDocument;
    const before = { status: notice.status, reason: notice.reason, email: document.buyer.email };
    await trx
      .updateTable('dunning_notices')
      .set({
        status: 'pending',
        reason: null,
        mail_started_at: null,
        document: JSON.stringify({ ...document, buyer: { ...document.buyer, email } }),
        updated_at: now,
      })
      .where('company_id', '=', companyId)
      .where('id', '=', notice.id)
      .where('status', '=', 'failed')
      .execute();
    await enqueueJob(trx, { name: SEND_NOTICE_JOB, companyId, payload: { notice_id: notice.id }, runAt: now });
    await recordAudit(trx, actor, now, {
      action: 'dunning.notice_retried',
      subjectType: 'dunning_notice',
      subjectId: notice.id,
      before,
      after: { status: 'pending', email, invoice_number: number, level: notice.level },
    });
    return { noticeId: notice.id, invoiceId: invoice.id, invoiceNumber: number, level: notice.level, email };
  });
}
