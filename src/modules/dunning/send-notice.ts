import type { Database } from '../../db/connection.ts';
import type { SmtpSettings } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { type Job, PermanentJobError, recordEvent } from '../../jobs/index.ts';
import type { Clock } from '../../shared/clock.ts';
import { pauseAt } from '../../shared/pause-at.ts';
import { nextChangeSeq } from '../invoicing/invoice-changes.ts';
import { invoiceView } from '../invoicing/invoice-view.ts';
import { findInvoiceViewRow } from '../invoicing/invoices.repository.ts';
import type { Mailer } from '../mail/index.ts';
import { closeNotice, findNoticeToSend, markNoticeMailing, markNoticeSent, OPEN_STATUSES, storeNoticePdfOnce } from './dunning.repository.ts';
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
 * Never twice: the run notes in a commit that it mails before the mail leaves. A run that
 * finds that note (the earlier run died: a live one keeps its job lease) does not mail on
 * its own when it cannot know whether the mail left: the outbox file tells; over SMTP the
 * notice counts as sent, with `mail_unconfirmed` in its reason for whoever reads it.
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
  const company = { id: companyId, name: notice.company_name, email: notice.company_email, smtp: notice.company_smtp as SmtpSettings | null };
  const messageId = noticeMessageId(companyId, noticeId);
  if (notice.mail_started_at) {
    const left = await mailer.holds(company, messageId);
    if (left !== false) return recordSent(deps, companyId, noticeId, notice.invoice_id, messageId, left === null ? UNCONFIRMED : null);
  }
  // Not pending any more (a Mahnsperre cancelled it since it was read): no mail.
  if (!(await markNoticeMailing(db, companyId, noticeId, clock.now()))) return 'unchanged';
  await pauseAt('dunning-mail.before-send');
  const outcome = await mailer.send(company, { ...dunningMail(doc, pdf), messageId });
  await pauseAt('dunning-mail.after-send');
  if (!outcome.ok) {
    await markNoticeMailing(db, companyId, noticeId, null);
    // Unreachable may work later (backoff); a refusal or a missing address needs a person.
    const reason = `${outcome.error.code}: ${outcome.error.message}`;
    throw outcome.error.code === 'mail_unreachable' ? new Error(reason) : new PermanentJobError(reason);
  }
  return recordSent(deps, companyId, noticeId, notice.invoice_id, outcome.messageId, null);
}

const UNCONFIRMED =
  'mail_unconfirmed: the run that mailed this notice over SMTP stopped before it recorded the mail; whether it left is not known, so it was not mailed again';

/** In one transaction: the notice sent, the invoice's dunning_level, the change feed and `invoice.dunning_sent`. */
async function recordSent(
  deps: SendNoticeDeps,
  companyId: string,
  noticeId: string,
  invoiceId: string,
  messageId: string,
  reason: string | null,
): Promise<SendNoticeOutcome> {
  const { db, clock } = deps;
  await inTransaction(db, async (trx) => {
    // The invoice row first, then the feed counter: the order every invoice change takes.
    await trx.selectFrom('invoices').select('id').where('company_id', '=', companyId).where('id', '=', invoiceId).forUpdate().executeTakeFirstOrThrow();
    const sent = await markNoticeSent(trx, companyId, noticeId, messageId, clock.now(), reason);
    if (!sent) return;
    await trx
      .updateTable('invoices')
      .set({ dunning_level: sent.level, last_dunning_on: sent.notice_date, change_seq: await nextChangeSeq(trx, companyId), changed_at: clock.now() })
      .where('company_id', '=', companyId)
      .where('id', '=', invoiceId)
      .execute();
    const row = await findInvoiceViewRow(trx, companyId, invoiceId);
    await recordEvent(trx, { companyId, type: 'invoice.dunning_sent', subjectId: invoiceId, data: invoiceView(row!), createdAt: clock.now() });
  });
  return 'sent';
}
