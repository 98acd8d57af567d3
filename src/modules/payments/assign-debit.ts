import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { RetryTransaction } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { formatCents } from '../../shared/money.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { bookPaymentReversals, lockedUntil } from '../bookkeeping/index.ts';
import { reverseInvoicePayments } from '../commissions/index.ts';
import { nextChangeSeqs } from '../invoicing/invoice-changes.ts';
import { AssignCreditError } from './assign-credit.ts';
import { startOfDay } from './booking-instant.ts';
import { normalizeInvoiceNumber } from './invoice-number-finder.ts';
import { statusFor } from './match-debits.ts';
import { applyInvoicePayments, insertReversals, loadNamedInvoices } from './payments.repository.ts';

// A person assigns a debit the import left unmatched (or what is left of it) to an invoice
// by hand (issue 24): taken back exactly like an automatic match — first the customer
// credit the invoice's over-payment left, then its amount paid, never more than both — with
// the reversal row booked debtor against bank on the bank's booking day, the invoice's
// amount paid, status (partially_paid, or issued/sent with paid_at cleared) and change-feed
// position, the revenue share's reversal, and an audit row, all in one transaction. No
// event (a reversal is none, design §5). What is left of the debit stays to be assigned.

/** A refusal of a manual assignment of a debit (a German sentence); caught like the credit's. */
export class AssignDebitError extends AssignCreditError {}

export type AssignedDebit = {
  reversalId: string;
  invoiceNumber: string;
  /** Taken back from the invoice's amount paid, and of the customer credit. */
  invoiceCents: number;
  creditCents: number;
  leftCents: number;
  statusAfter: 'issued' | 'sent' | 'partially_paid' | 'paid';
};

export async function assignBankDebit(
  deps: { db: Database; clock: Clock },
  companyId: string,
  debit: { entryId: string; position: number },
  invoiceNumber: string,
  actor: Actor & { email: string },
): Promise<AssignedDebit> {
  return inTransaction(deps.db, async (trx) => {
    // One at a time with the company's imports and other assignments: the customer credit
    // an over-payment left is read here and paid back, and is in no row a conflict check sees.
    await sql`select pg_advisory_xact_lock(hashtext(${`bank-import:${companyId}`}))`.execute(trx);
    const tx = await trx
      .selectFrom('bank_transactions as t')
      .innerJoin('bank_entries as e', (join) => join.onRef('e.company_id', '=', 't.company_id').onRef('e.id', '=', 't.entry_id'))
      .select(['t.entry_id', 't.position', 't.status', 't.unassigned_cents', 'e.booking_date', 'e.direction', 'e.reversal'])
      .where('t.company_id', '=', companyId)
      .where('t.entry_id', '=', debit.entryId)
      .where('t.position', '=', debit.position)
      .forNoKeyUpdate('t')
      .executeTakeFirst();
    if (tx?.direction !== 'debit') throw new AssignDebitError('Diese Abbuchung gibt es nicht.');
    if (tx.status !== 'unmatched' || tx.unassigned_cents <= 0) throw new AssignDebitError('Diese Abbuchung ist bereits vollständig zugeordnet.');
    const wanted = invoiceNumber.trim();
    const found = await loadNamedInvoices(trx, companyId, [normalizeInvoiceNumber(wanted)], []);
    const invoice = found.find((row) => row.number === wanted) ?? found[0];
    if (!invoice?.number) throw new AssignDebitError(`Eine Rechnung ${wanted} gibt es nicht.`);
    if (invoice.type === 'storno') throw new AssignDebitError(`${invoice.number} ist eine Stornorechnung; von ihr lässt sich nichts zurückbuchen.`);
    if (invoice.status === 'cancelled') throw new AssignDebitError(`Die Rechnung ${invoice.number} ist storniert; von ihr lässt sich nichts zurückbuchen.`);
    if (!['issued', 'sent', 'partially_paid', 'paid'].includes(invoice.status))
      throw new AssignDebitError(`Die Rechnung ${invoice.number} ist nicht ausgestellt.`);
    const credit = Number(invoice.credit_cents);
    const creditCents = Math.min(tx.unassigned_cents, credit);
    const invoiceCents = Math.min(tx.unassigned_cents - creditCents, invoice.amount_paid_cents);
    if (creditCents + invoiceCents <= 0)
      throw new AssignDebitError(`Auf die Rechnung ${invoice.number} ist nichts gezahlt worden, das zurückgebucht werden könnte.`);
    const company = await trx.selectFrom('companies').select(['chart', 'timezone']).where('id', '=', companyId).executeTakeFirstOrThrow();
    const locked = await lockedUntil(trx, companyId);
    if (locked !== null && tx.booking_date <= locked)
      throw new AssignDebitError(`Der Buchungszeitraum ist bis ${locked} gesperrt; die Abbuchung vom ${tx.booking_date} fiele hinein.`);

    const now = deps.clock.now();
    const reversalId = newId('prv');
    const state = { grossCents: invoice.total_gross_cents, sent: invoice.sent };
    const statusBefore = statusFor(state, invoice.amount_paid_cents);
    const paidAfter = invoice.amount_paid_cents - invoiceCents;
    const statusAfter = statusFor(state, paidAfter);
    await insertReversals(trx, [
      {
        company_id: companyId,
        id: reversalId,
        entry_id: tx.entry_id,
        transaction_position: tx.position,
        invoice_id: invoice.id,
        invoice_cents: invoiceCents,
        credit_cents: creditCents,
        booking_date: tx.booking_date,
        kind: tx.reversal ? 'return' : 'refund',
        return_marker: null,
        return_reason: null,
        status_before: statusBefore,
        paid_before_cents: invoice.amount_paid_cents,
        assigned_by: actor.userId,
        created_at: now,
      },
    ]);
    await bookPaymentReversals(trx, companyId, company.chart, [
      {
        documentId: reversalId,
        invoiceNumber: invoice.number,
        customerNumber: String(invoice.kundennummer),
        amountCents: invoiceCents + creditCents,
        date: tx.booking_date,
        description: `${tx.reversal ? 'Rückbuchung' : 'Erstattung'} ${invoice.number} ${invoice.customer_name}`,
      },
    ]);
    if (invoiceCents > 0) {
      const changeSeq = await nextChangeSeqs(trx, companyId, 1);
      const updated = await applyInvoicePayments(
        trx,
        companyId,
        [
          {
            id: invoice.id,
            expectedPaidCents: invoice.amount_paid_cents,
            expectedStatus: invoice.status,
            paidCents: paidAfter,
            status: statusAfter,
            paidAt: null,
            wasOverdue: invoice.was_overdue,
            changeSeq,
          },
        ],
        now,
      );
      if (updated !== 1) throw new RetryTransaction();
      await reverseInvoicePayments(
        trx,
        companyId,
        [
          {
            reversalId,
            invoiceId: invoice.id,
            customerId: invoice.customer_id,
            amountCents: invoiceCents,
            paidBeforeCents: invoice.amount_paid_cents,
            grossCents: invoice.total_gross_cents,
            reversedOn: tx.booking_date,
            reversedAt: startOfDay(tx.booking_date, company.timezone),
          },
        ],
        now,
      );
    }
    const left = tx.unassigned_cents - invoiceCents - creditCents;
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
    await recordAudit(trx, actor, now, {
      action: 'payment.reversed',
      subjectType: 'invoice',
      subjectId: invoice.id,
      before: {
        invoice: invoice.number,
        status: invoice.status,
        paid: formatCents(invoice.amount_paid_cents),
        customer_credit: formatCents(credit),
        debit_unassigned: formatCents(tx.unassigned_cents),
      },
      after: {
        invoice: invoice.number,
        status: statusAfter,
        paid: formatCents(paidAfter),
        customer_credit: formatCents(credit - creditCents),
        debit_unassigned: formatCents(left),
        booking_date: tx.booking_date,
      },
    });
    return { reversalId, invoiceNumber: invoice.number, invoiceCents, creditCents, leftCents: left, statusAfter };
  });
}
