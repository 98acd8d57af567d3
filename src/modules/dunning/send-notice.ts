import type { Database } from '../../db/connection.ts';
import type { SmtpSettings } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { type Job, PermanentJobError, recordEvent } from '../../jobs/index.ts';
import type { Clock } from '../../shared/clock.ts';
import { nextChangeSeq } from '../invoicing/invoice-changes.ts';
import { invoiceView } from '../invoicing/invoice-view.ts';
import { findInvoiceViewRow } from '../invoicing/invoices.repository.ts';
import type { Mailer } from '../mail/index.ts';
import { closeNotice, findNoticeToSend, markNoticeSent, OPEN_STATUSES, storeNoticePdfOnce } from './dunning.repository.ts';
import type { NoticeDocument } from './notice-document.ts';
import { dunningMail } from './notice-mail.ts';
import { renderNoticePdf } from './render/notice-pdf.ts';

export type SendNoticePayload = { notice_id: string };
/** Without a mailer (a process started without one) the job retries until one runs it. */
export type SendNoticeDeps = { db: Database; clock: Clock; mailer: Mailer | undefined };
export type SendNoticeOutcome = 'sent' | 'cancelled' | 'unchanged';

/** The stable Message-ID of a notice mail: a repeated send carries the same id. */
export function noticeMessageId(companyId: string, noticeId: string): string {
  return `<${noticeId}.${companyId.replace(/[^A-Za-z0-9_-]+/g, '-')}@kontor>`;
}

/**
 * Job `dunning.send_notice`: renders the notice's PDF once and stores it, mails it from
 * the company's mailbox, then in one transaction marks the notice sent, raises the
 * invoice's dunning_level, moves the change feed and records `invoice.dunning_sent`. A
 * notice whose invoice was paid, cancelled or paid in part since the notice was made is
 * cancelled instead (a partly paid invoice gets a new notice for the rest on the next
 * run). A mail the server refused, or one that could not go out by the last attempt,
 * marks the notice failed (the next daily run makes a new one).
 * At least once: a worker that dies between the mail and the commit mails again on the
 * retry, with the same Message-ID.
 */
export async function sendNotice(deps: SendNoticeDeps, job: Job<SendNoticePayload>): Promise<SendNoticeOutcome> {
  const companyId = job.company_id;
  if (!companyId) throw new PermanentJobError('the job has no company');
  try {
    return await attemptSend(deps, companyId, job.payload.notice_id);
  } catch (error) {
    // The job ends for good: the notice must not stay pending, or its level would be blocked.
    if (error instanceof PermanentJobError || job.attempts >= job.max_attempts) {
      await closeNotice(deps.db, companyId, job.payload.notice_id, 'failed', (error as Error).message, deps.clock.now());
    }
    throw error;
  }
}

async function attemptSend(deps: SendNoticeDeps, companyId: string, noticeId: string): Promise<SendNoticeOutcome> {
  const { db, clock } = deps;
  const notice = await findNoticeToSend(db, companyId, noticeId);
  if (!notice) throw new PermanentJobError(`no dunning notice ${noticeId}`);
  if (notice.status !== 'pending') return 'unchanged';
  const stop = !OPEN_STATUSES.includes(notice.invoice_status)
    ? notice.invoice_status
    : notice.invoice_paid_cents !== notice.paid_cents
      ? 'amount_changed: a payment arrived after the notice was made'
      : null;
  if (stop) {
    await closeNotice(db, companyId, noticeId, 'cancelled', stop, clock.now());
    return 'cancelled';
  }

  const mailer = deps.mailer;
  if (!mailer) throw new Error('this process runs jobs without a mailer (JobDeps.mailer); the notice waits for one that has it');
  const doc = notice.document as NoticeDocument;
  const pdf = notice.pdf ? Buffer.from(notice.pdf, 'base64') : await storeNoticePdfOnce(db, companyId, noticeId, await renderNoticePdf(doc));
  const outcome = await mailer.send(
    { id: companyId, name: notice.company_name, email: notice.company_email, smtp: notice.company_smtp as SmtpSettings | null },
    { ...dunningMail(doc, pdf), messageId: noticeMessageId(companyId, noticeId) },
  );
  if (!outcome.ok) {
    // Unreachable may work later (backoff); a refusal or a missing address needs a person.
    const reason = `${outcome.error.code}: ${outcome.error.message}`;
    throw outcome.error.code === 'mail_unreachable' ? new Error(reason) : new PermanentJobError(reason);
  }

  await inTransaction(db, async (trx) => {
    // The invoice row first, then the feed counter: the order every invoice change takes.
    await trx.selectFrom('invoices').select('id').where('company_id', '=', companyId).where('id', '=', notice.invoice_id).forUpdate().executeTakeFirstOrThrow();
    const sent = await markNoticeSent(trx, companyId, noticeId, outcome.messageId, clock.now());
    if (!sent) return;
    await trx
      .updateTable('invoices')
      .set({ dunning_level: sent.level, last_dunning_on: sent.notice_date, change_seq: await nextChangeSeq(trx, companyId), changed_at: clock.now() })
      .where('company_id', '=', companyId)
      .where('id', '=', notice.invoice_id)
      .execute();
    const row = await findInvoiceViewRow(trx, companyId, notice.invoice_id);
    await recordEvent(trx, { companyId, type: 'invoice.dunning_sent', subjectId: notice.invoice_id, data: invoiceView(row!), createdAt: clock.now() });
  });
  return 'sent';
}
