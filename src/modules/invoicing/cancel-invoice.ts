import { inTransaction } from '../../db/transaction.ts';
import { recordEvent } from '../../jobs/index.ts';
import { AppError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { buildStornoDocument, sellerOf } from './build-document.ts';
import type { InvoiceDocument } from './document.ts';
import { drawInvoiceNumber } from './draw-invoice-number.ts';
import { nextChangeSeq } from './invoice-changes.ts';
import { storeFiles } from './invoice-files.ts';
import { type InvoiceView, invoiceView } from './invoice-view.ts';
import { findInvoiceViewRow } from './invoices.repository.ts';
import { type InvoicingDeps, renderOrRefuse } from './invoicing-deps.ts';
import { assertPeriodOpen } from './period-lock.ts';
import { centsToDecimal } from './totals.ts';

const NOT_CANCELLABLE: Record<string, string> = {
  draft: 'Ein Entwurf ist kein Beleg und wird nicht storniert; er wird in der App verworfen.',
  paid: 'Die Rechnung ist bezahlt und kann nicht storniert werden. Erstatten Sie den Betrag; sobald die Erstattung im Kontoauszug importiert und die Rechnung vollständig zurückgebucht ist, lässt sie sich stornieren.',
  partially_paid:
    'Auf die Rechnung ist bereits eine Zahlung eingegangen; sie kann nicht storniert werden. Sobald die Zahlung erstattet und im Kontoauszug zurückgebucht ist, lässt sie sich stornieren.',
};

/**
 * POST /invoices/{id}/cancel: issues the Stornorechnung (own number, negated amounts,
 * references both ways, own PDF and e-invoice as a correction), books the reversal and
 * marks the original cancelled — in one transaction. A second call answers with the
 * same storno (created: false).
 */
export async function cancelInvoice(
  deps: InvoicingDeps,
  companyId: string,
  invoiceId: string,
  /** The person who cancels (the app, the command line): audited in this transaction. */
  actor?: Actor,
): Promise<{ created: boolean; storno: InvoiceView }> {
  return inTransaction(deps.db, async (trx) => {
    const original = await trx
      .selectFrom('invoices')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('id', '=', invoiceId)
      .forUpdate()
      .executeTakeFirst();
    if (!original) throw new AppError('invoice_not_found');
    if (original.status === 'cancelled' && original.cancelled_by_invoice_id) {
      const existing = await findInvoiceViewRow(trx, companyId, original.cancelled_by_invoice_id);
      return { created: false, storno: invoiceView(existing!) };
    }
    if (original.type === 'storno') throw notCancellable('Eine Stornorechnung kann nicht ihrerseits storniert werden.');
    const reason = NOT_CANCELLABLE[original.status];
    if (reason || !original.document) throw notCancellable(reason ?? NOT_CANCELLABLE.draft!);

    const company = await trx.selectFrom('companies').selectAll().where('id', '=', companyId).executeTakeFirstOrThrow();
    const issueDate = deps.clock.today(company.timezone);
    const lockedUntil = await assertPeriodOpen(trx, companyId, issueDate);
    const { number } = await drawInvoiceNumber(trx, company, issueDate);
    const doc = buildStornoDocument(original.document as InvoiceDocument, sellerOf(company), number, issueDate);
    const files = await renderOrRefuse(deps, doc);
    const stornoId = newId('inv');
    const now = deps.clock.now();
    await trx
      .insertInto('invoices')
      .values({
        ...original,
        id: stornoId,
        number,
        status: 'issued',
        type: 'storno',
        external_source: null,
        external_ref: null,
        issue_date: issueDate,
        due_date: issueDate,
        total_net_cents: -original.total_net_cents,
        total_tax_cents: -original.total_tax_cents,
        total_gross_cents: -original.total_gross_cents,
        amount_paid_cents: 0,
        document: JSON.stringify(doc),
        // The original keeps the person's confirmation; its storno mirrors the VAT it carries.
        tax_confirmation: null,
        sent_at: null,
        paid_at: null,
        overdue: false,
        dunning_level: null,
        cancels_invoice_id: original.id,
        cancelled_by_invoice_id: null,
        change_seq: await nextChangeSeq(trx, companyId),
        changed_at: now,
        created_at: now,
      })
      .execute();
    const lines = await trx
      .selectFrom('invoice_lines')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('invoice_id', '=', original.id)
      .orderBy('position')
      .execute();
    await trx
      .insertInto('invoice_lines')
      .values(lines.map((line, i) => ({ ...line, invoice_id: stornoId, quantity: doc.lines[i]!.quantity, net_cents: -line.net_cents })))
      .execute();
    await storeFiles(trx, companyId, stornoId, files);
    await deps.book(trx, company, doc, stornoId, { newDocument: true, lockedUntil });
    await trx
      .updateTable('invoices')
      .set({ status: 'cancelled', cancelled_by_invoice_id: stornoId, overdue: false, change_seq: await nextChangeSeq(trx, companyId), changed_at: now })
      .where('company_id', '=', companyId)
      .where('id', '=', original.id)
      .execute();
    const cancelled = await findInvoiceViewRow(trx, companyId, original.id);
    await recordEvent(trx, { companyId, type: 'invoice.cancelled', subjectId: original.id, data: invoiceView(cancelled!), createdAt: now });
    const storno = await findInvoiceViewRow(trx, companyId, stornoId);
    if (actor) {
      await recordAudit(trx, actor, now, {
        action: 'invoice.cancelled',
        subjectType: 'invoice',
        subjectId: original.id,
        before: { status: original.status, number: original.number },
        after: {
          status: 'cancelled',
          number: original.number,
          storno_id: stornoId,
          storno_number: number,
          storno_total: centsToDecimal(storno!.total_gross_cents),
        },
      });
    }
    return { created: true, storno: invoiceView(storno!) };
  });
}

function notCancellable(message: string): AppError {
  return new AppError('invoice_not_cancellable', { messages: [message] }, message);
}
