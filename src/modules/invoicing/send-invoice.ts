import type { Database } from '../../db/connection.ts';
import { AppError } from '../../shared/errors.ts';
import { pauseAt } from '../../shared/pause-at.ts';
import type { Actor } from '../audit/audit-log.ts';
import type { CompanyRow } from './build-document.ts';
import type { InvoiceDocument } from './document.ts';
import { readFiles } from './invoice-files.ts';
import { invoiceView, type SendError } from './invoice-view.ts';
import { findInvoiceViewRow } from './invoices.repository.ts';
import type { InvoicingDeps } from './invoicing-deps.ts';
import { beginAttempt, finishAttempt, type MailAttempt, UNCONFIRMED } from './mail-attempts.ts';

export type SendOutcome = { ok: true } | { ok: false; error: SendError };

export type SendOptions = {
  /** Mail again although an interrupted mail may have arrived (mail_unconfirmed). */
  resend?: boolean;
  /**
   * A person mails an invoice that was mailed before once more (the customer lost it): a
   * new attempt under a Message-ID of its own, so the receiver does not drop it as the
   * first mail's duplicate. Status, sent_at and the event invoice.sent stay as they were.
   */
  again?: boolean;
  /** The person who sends (the app, the command line): audited with the attempt's end. */
  actor?: Actor;
};

/** A mail that threw (our own failure: the outbox disk, a bug) did not leave. */
const MAIL_CRASHED: SendError = {
  code: 'mail_unreachable',
  message: 'Die Mail konnte wegen eines internen Fehlers nicht übergeben werden. Bitte später mit POST /invoices/{id}/send erneut senden.',
};

/**
 * Mails an issued invoice whose attempt is recorded and committed (mail-attempts.ts),
 * outside any transaction, then records how it ended: the first mail that leaves makes the
 * invoice `sent` (unless paid meanwhile) with the event invoice.sent — once.
 */
export async function mailRecordedAttempt(
  deps: InvoicingDeps,
  company: CompanyRow,
  invoiceId: string,
  attempt: MailAttempt,
  doc: InvoiceDocument,
  files: { pdf: Buffer; xml: Buffer | null },
  actor?: Actor,
): Promise<SendOutcome> {
  await pauseAt('invoice-mail.before-send');
  const outcome: SendOutcome = await deps.mail(company, doc, files, attempt.messageId).catch(() => ({ ok: false, error: MAIL_CRASHED }));
  await pauseAt('invoice-mail.after-send');
  await finishAttempt(deps, company.id, invoiceId, attempt.id, outcome, actor ? { actor, to: doc.buyer.email, messageId: attempt.messageId } : undefined);
  return outcome;
}

async function loadIssued(db: Database, companyId: string, invoiceId: string) {
  const invoice = await db
    .selectFrom('invoices')
    .select(['id', 'number', 'status', 'sent_at', 'document'])
    .where('company_id', '=', companyId)
    .where('id', '=', invoiceId)
    .where('type', 'in', ['invoice', 'storno'])
    .executeTakeFirst();
  if (!invoice) throw new AppError('invoice_not_found');
  return invoice;
}

/**
 * POST /invoices/{id}/send: mails an issued invoice once; an invoice mailed before is
 * answered unchanged. After a crash left it unknown whether the mail left (SMTP), it is
 * mailed again only with `resend`. A person may mail a sent invoice once more (`again`).
 * A cancelled invoice is not mailed.
 */
export async function sendInvoice(deps: InvoicingDeps, companyId: string, invoiceId: string, options: SendOptions = {}) {
  const invoice = await loadIssued(deps.db, companyId, invoiceId);
  if (invoice.status === 'draft' || !invoice.document || !invoice.number)
    throw new AppError('invoice_not_issued', {}, 'A draft cannot be sent; a person issues it in the app first.');
  const again = options.again === true && invoice.sent_at !== null;
  if ((!invoice.sent_at || again) && invoice.status !== 'cancelled') {
    const company = await deps.db.selectFrom('companies').selectAll().where('id', '=', companyId).executeTakeFirstOrThrow();
    const { pdf, xml } = await readFiles(deps.db, companyId, invoiceId);
    if (!pdf) throw new AppError('invoice_pdf_missing');
    const start = await beginAttempt(deps, company, invoiceId, invoice.number, options.resend === true, again);
    if (start.kind === 'unconfirmed') throw new AppError('invoice_send_failed', { send_error: UNCONFIRMED }, UNCONFIRMED.message);
    if (start.kind === 'start') {
      const doc = invoice.document as InvoiceDocument;
      const outcome = await mailRecordedAttempt(deps, company, invoiceId, start.attempt, doc, { pdf, xml }, options.actor);
      if (!outcome.ok) throw new AppError('invoice_send_failed', { send_error: outcome.error }, outcome.error.message);
    }
  }
  const row = await findInvoiceViewRow(deps.db, companyId, invoiceId);
  return invoiceView(row!);
}
