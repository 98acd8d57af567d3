import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import { recordEvent } from '../../jobs/index.ts';
import type { Clock } from '../../shared/clock.ts';
import { RetryTransaction } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { formatCents } from '../../shared/money.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { bookPayments, lockedUntil } from '../bookkeeping/index.ts';
import { accrueInvoicePayments } from '../commissions/index.ts';
import { nextChangeSeqs } from '../invoicing/invoice-changes.ts';
import { invoiceView } from '../invoicing/invoice-view.ts';
import { findInvoiceViewRows } from '../invoicing/invoices.repository.ts';
import { startOfDay } from './booking-instant.ts';
import { applyInvoicePayments, findPaidBefore, insertAllocations } from './payments.repository.ts';

// A person assigns an unmatched bank credit (or what is left of it) to an open invoice by
// hand (issue 15, design §7): booked exactly like an automatic match — a payment allocation
// booked bank against debtor on the bank's booking day, the invoice's amount paid and
// status, event invoice.paid when it is paid in full, the revenue share of the payment —
// plus an audit row, all in one transaction. At most the invoice's open amount is assigned;
// what is left of the credit stays to be assigned.

export class AssignCreditError extends Error {}

export type AssignedCredit = { allocationId: string; invoiceNumber: string; amountCents: number; leftCents: number; invoicePaid: boolean };

export async function assignBankCredit(
  deps: { db: Database; clock: Clock },
  companyId: string,
  credit: { entryId: string; position: number },
  invoiceNumber: string,
  actor: Actor & { email: string },
): Promise<AssignedCredit> {
  return inTransaction(deps.db, async (trx) => {
    // One at a time with the company's imports and other assignments (the import's lock).
    await sql`select pg_advisory_xact_lock(hashtext(${`bank-import:${companyId}`}))`.execute(trx);
    const tx = await trx
      .selectFrom('bank_transactions as t')
      .innerJoin('bank_entries as e', (join) => join.onRef('e.company_id', '=', 't.company_id').onRef('e.id', '=', 't.entry_id'))
      .select(['t.entry_id', 't.position', 't.status', 't.unassigned_cents', 't.payer_name', 'e.booking_date', 'e.currency', 'e.direction'])
      .where('t.company_id', '=', companyId)
      .where('t.entry_id', '=', credit.entryId)
      .where('t.position', '=', credit.position)
      .forNoKeyUpdate('t')
      .executeTakeFirst();
    // A debit is taken back from an invoice (assign-debit.ts), never paid to it.
    if (tx?.direction !== 'credit') throw new AssignCreditError('Diese Gutschrift gibt es nicht.');
    if (tx.status !== 'unmatched' || tx.unassigned_cents <= 0) throw new AssignCreditError('Diese Gutschrift ist bereits vollständig zugeordnet.');
    const invoice = await trx
      .selectFrom('invoices as i')
      .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'i.company_id').onRef('c.id', '=', 'i.customer_id'))
      .select([
        'i.id',
        'i.number',
        'i.status',
        'i.type',
        'i.total_gross_cents',
        'i.amount_paid_cents',
        'i.overdue',
        'i.customer_id',
        'c.kundennummer',
        'c.name as customer_name',
      ])
      .where('i.company_id', '=', companyId)
      .where('i.number', '=', invoiceNumber.trim())
      .forNoKeyUpdate('i')
      .executeTakeFirst();
    if (!invoice?.number) throw new AssignCreditError(`Eine Rechnung ${invoiceNumber.trim()} gibt es nicht.`);
    if (invoice.type !== 'invoice' || !['issued', 'sent', 'partially_paid'].includes(invoice.status))
      throw new AssignCreditError(`Die Rechnung ${invoice.number} ist nicht offen.`);
    const openCents = invoice.total_gross_cents - invoice.amount_paid_cents;
    const amount = Math.min(openCents, tx.unassigned_cents);
    if (amount <= 0) throw new AssignCreditError(`Die Rechnung ${invoice.number} ist nicht offen.`);
    const company = await trx.selectFrom('companies').select(['chart', 'timezone']).where('id', '=', companyId).executeTakeFirstOrThrow();
    const locked = await lockedUntil(trx, companyId);
    if (locked !== null && tx.booking_date <= locked)
      throw new AssignCreditError(`Der Buchungszeitraum ist bis ${locked} gesperrt; die Gutschrift vom ${tx.booking_date} fiele hinein.`);

    const now = deps.clock.now();
    const allocationId = newId('pay');
    await insertAllocations(trx, [
      {
        company_id: companyId,
        id: allocationId,
        entry_id: tx.entry_id,
        transaction_position: tx.position,
        invoice_id: invoice.id,
        amount_cents: amount,
        booking_date: tx.booking_date,
        created_at: now,
        invoice_was_overdue: invoice.overdue,
      },
    ]);
    await bookPayments(trx, companyId, company.chart, [
      {
        documentId: allocationId,
        invoiceNumber: invoice.number,
        customerNumber: String(invoice.kundennummer),
        amountCents: amount,
        date: tx.booking_date,
        description: `Zahlungseingang ${invoice.number} ${invoice.customer_name}`,
      },
    ]);
    const paidCents = invoice.amount_paid_cents + amount;
    const paid = paidCents >= invoice.total_gross_cents;
    const changeSeq = await nextChangeSeqs(trx, companyId, 1);
    const updated = await applyInvoicePayments(
      trx,
      companyId,
      [
        {
          id: invoice.id,
          expectedPaidCents: invoice.amount_paid_cents,
          expectedStatus: invoice.status as 'issued',
          paidCents,
          status: paid ? 'paid' : 'partially_paid',
          paidAt: paid ? startOfDay(tx.booking_date, company.timezone) : null,
          wasOverdue: invoice.overdue,
          changeSeq,
        },
      ],
      now,
    );
    if (updated !== 1) throw new RetryTransaction();
    const left = tx.unassigned_cents - amount;
    await trx
      .updateTable('bank_transactions')
      .set({
        unassigned_cents: left,
        status: left > 0 ? 'unmatched' : 'matched',
        // The reason the import gave is answered: the page shows the note above.
        notes: null,
        note: left > 0 ? `Teilweise von Hand zugeordnet (${invoice.number}); ${formatCents(left)} EUR offen` : `Von Hand zugeordnet: ${invoice.number}`,
      })
      .where('company_id', '=', companyId)
      .where('entry_id', '=', tx.entry_id)
      .where('position', '=', tx.position)
      .execute();
    await accrueInvoicePayments(
      trx,
      companyId,
      [
        {
          allocationId,
          invoiceId: invoice.id,
          customerId: invoice.customer_id,
          amountCents: amount,
          paidBeforeCents: invoice.amount_paid_cents,
          grossCents: invoice.total_gross_cents,
          paidOn: tx.booking_date,
          paidAt: startOfDay(tx.booking_date, company.timezone),
        },
      ],
      now,
    );
    // Not a second time for an invoice paid in full before and taken back since (design §5).
    if (paid && !(await findPaidBefore(trx, companyId, [invoice.id])).has(invoice.id)) {
      const [view] = await findInvoiceViewRows(trx, companyId, [invoice.id]);
      await recordEvent(trx, { companyId, type: 'invoice.paid', subjectId: invoice.id, data: invoiceView(view!), createdAt: now });
    }
    await recordAudit(trx, actor, now, {
      action: 'payment.assigned',
      subjectType: 'invoice',
      subjectId: invoice.id,
      before: { invoice: invoice.number, paid: formatCents(invoice.amount_paid_cents), credit_unassigned: formatCents(tx.unassigned_cents) },
      after: { invoice: invoice.number, paid: formatCents(paidCents), credit_unassigned: formatCents(left), booking_date: tx.booking_date },
    });
    return { allocationId, invoiceNumber: invoice.number, amountCents: amount, leftCents: left, invoicePaid: paid };
  });
}
