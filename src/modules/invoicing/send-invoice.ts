import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import { recordEvent } from '../../jobs/index.ts';
import { AppError } from '../../shared/errors.ts';
import type { CompanyRow } from './build-document.ts';
import type { InvoiceDocument } from './document.ts';
import { nextChangeSeq } from './invoice-changes.ts';
import { readFiles } from './invoice-files.ts';
import { invoiceView, type SendError } from './invoice-view.ts';
import { findInvoiceViewRow } from './invoices.repository.ts';
import type { InvoicingDeps } from './invoicing-deps.ts';

export type SendOutcome = { ok: true } | { ok: false; error: SendError };

/**
 * Mails an issued invoice (outside any transaction), then records the first mail:
 * status `sent` (unless paid meanwhile), `sent_at`, and the event invoice.sent — once.
 */
export async function sendIssuedInvoice(
  deps: InvoicingDeps,
  company: CompanyRow,
  invoiceId: string,
  doc: InvoiceDocument,
  files: { pdf: Buffer; xml: Buffer | null },
): Promise<SendOutcome> {
  const outcome = await deps.mail(company, doc, files);
  if (!outcome.ok) return outcome;
  await inTransaction(deps.db, async (trx) => {
    const current = await trx
      .selectFrom('invoices')
      .select(['status', 'sent_at'])
      .where('company_id', '=', company.id)
      .where('id', '=', invoiceId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (current.sent_at) return;
    await trx
      .updateTable('invoices')
      .set({
        status: current.status === 'issued' ? 'sent' : current.status,
        sent_at: deps.clock.now(),
        change_seq: await nextChangeSeq(trx, company.id),
        changed_at: deps.clock.now(),
      })
      .where('company_id', '=', company.id)
      .where('id', '=', invoiceId)
      .execute();
    const row = await findInvoiceViewRow(trx, company.id, invoiceId);
    await recordEvent(trx, { companyId: company.id, type: 'invoice.sent', subjectId: invoiceId, data: invoiceView(row!), createdAt: deps.clock.now() });
  });
  return outcome;
}

async function loadIssued(db: Database, companyId: string, invoiceId: string) {
  const invoice = await db
    .selectFrom('invoices')
    .select(['id', 'status', 'sent_at', 'document'])
    .where('company_id', '=', companyId)
    .where('id', '=', invoiceId)
    .where('type', 'in', ['invoice', 'storno'])
    .executeTakeFirst();
  if (!invoice) throw new AppError('invoice_not_found');
  return invoice;
}

/** POST /invoices/{id}/send: mails an issued invoice once; an invoice mailed before is answered unchanged. */
export async function sendInvoice(deps: InvoicingDeps, companyId: string, invoiceId: string) {
  const invoice = await loadIssued(deps.db, companyId, invoiceId);
  if (invoice.status === 'draft' || !invoice.document)
    throw new AppError('invoice_not_issued', {}, 'A draft cannot be sent; a person issues it in the app first.');
  if (!invoice.sent_at && invoice.status !== 'cancelled') {
    const company = await deps.db.selectFrom('companies').selectAll().where('id', '=', companyId).executeTakeFirstOrThrow();
    const { pdf, xml } = await readFiles(deps.db, companyId, invoiceId);
    if (!pdf) throw new AppError('invoice_pdf_missing');
    const outcome = await sendIssuedInvoice(deps, company, invoiceId, invoice.document as InvoiceDocument, { pdf, xml });
    if (!outcome.ok) throw new AppError('invoice_send_failed', {}, outcome.error.message);
  }
  const row = await findInvoiceViewRow(deps.db, companyId, invoiceId);
  return invoiceView(row!);
}
