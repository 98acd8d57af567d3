import { bulkInsert, type ColumnTypes } from '../../db/bulk-insert.ts';
import type { Chart } from '../../db/schema-bookkeeping.ts';
import type { Trx } from '../../db/transaction.ts';
import { newId } from '../../shared/ids.ts';
import { accountPlan, debtorAccount } from './accounts.ts';
import { BookkeepingError } from './bookkeeping-error.ts';
import { lockedUntil } from './journal.repository.ts';
import { assertBalanced, type JournalLine } from './journal.ts';

// Payments received (german-rules §6.2): S bank / H debtor, the gross amount received for
// one invoice, Belegfeld 1 = the invoice number so DATEV's open-item list clears the
// invoice. An over-payment books the whole amount received against the debtor, whose
// account then shows the surplus as a credit balance. One journal entry per payment
// (document_type 'payment', document_id = the payment's id); many at once, as the bank
// import books thousands in one transaction.
//
// Payments taken back (issue 24: a refund, a returned direct debit) are the mirror: H bank /
// S debtor, Belegfeld 1 = the invoice number, so the open item is open again in DATEV; also
// document_type 'payment', document_id = the reversal's id (payment_reversals). Appended,
// never an edit of the payment's entry.

export type PaymentToBook = {
  /** The payment (allocation) id: booked once. */
  documentId: string;
  invoiceNumber: string;
  /** The customer's number = debtor account. */
  customerNumber: string;
  amountCents: number;
  /** Booking date of the bank entry. */
  date: string;
  description: string;
};

const ENTRY_COLUMNS: ColumnTypes<'journal_entries'> = {
  company_id: 'text',
  id: 'text',
  entry_date: 'date',
  document_type: 'text',
  document_id: 'text',
  document_number: 'text',
  description: 'text',
  chart: 'text',
  service_date: 'date',
  counterparty_vat_id: 'text',
};
const LINE_COLUMNS: ColumnTypes<'journal_lines'> = {
  company_id: 'text',
  entry_id: 'text',
  position: 'integer',
  account: 'text',
  side: 'text',
  amount_cents: 'bigint',
  tax_key: 'text',
};

/** The journal lines of one payment (pure): S bank, H debtor. */
export function paymentJournalLines(chart: Chart, payment: Pick<PaymentToBook, 'customerNumber' | 'amountCents'>): JournalLine[] {
  const lines: JournalLine[] = [
    { account: accountPlan(chart).bank, side: 'S', amountCents: payment.amountCents, taxKey: null },
    { account: debtorAccount(payment.customerNumber), side: 'H', amountCents: payment.amountCents, taxKey: null },
  ];
  assertBalanced(lines);
  return lines;
}

/** The journal lines of a payment taken back (pure): H bank, S debtor — the payment's mirror. */
export function reversalJournalLines(chart: Chart, reversal: Pick<PaymentToBook, 'customerNumber' | 'amountCents'>): JournalLine[] {
  const lines: JournalLine[] = [
    { account: accountPlan(chart).bank, side: 'H', amountCents: reversal.amountCents, taxKey: null },
    { account: debtorAccount(reversal.customerNumber), side: 'S', amountCents: reversal.amountCents, taxKey: null },
  ];
  assertBalanced(lines);
  return lines;
}

/**
 * Books payments inside the caller's transaction, in multi-row inserts (db/bulk-insert.ts). A payment booked
 * before (same document id) is skipped. Refuses the whole batch when one date lies in a
 * locked period. Returns the number of entries written.
 */
export async function bookPayments(trx: Trx, companyId: string, chart: Chart, payments: readonly PaymentToBook[]): Promise<number> {
  return bookMoney(trx, companyId, chart, payments, paymentJournalLines);
}

/** Books payments taken back (PaymentToBook.documentId = the reversal's id), as bookPayments does, with the mirrored lines. */
export async function bookPaymentReversals(trx: Trx, companyId: string, chart: Chart, reversals: readonly PaymentToBook[]): Promise<number> {
  return bookMoney(trx, companyId, chart, reversals, reversalJournalLines);
}

async function bookMoney(
  trx: Trx,
  companyId: string,
  chart: Chart,
  payments: readonly PaymentToBook[],
  linesOf: (chart: Chart, payment: PaymentToBook) => JournalLine[],
): Promise<number> {
  if (payments.length === 0) return 0;
  const locked = await lockedUntil(trx, companyId);
  const early = locked === null ? undefined : payments.find((p) => p.date <= locked);
  if (early)
    throw new BookkeepingError(
      'period_locked',
      `the accounting period is locked up to ${locked}; the payment for ${early.invoiceNumber} is dated ${early.date}`,
      locked,
    );

  const prepared = payments.map((payment) => ({ payment, id: newId('jen'), lines: linesOf(chart, payment) }));
  const inserted = await bulkInsert(
    trx,
    'journal_entries',
    ENTRY_COLUMNS,
    prepared.map(({ payment, id }) => ({
      company_id: companyId,
      id,
      entry_date: payment.date,
      document_type: 'payment' as const,
      document_id: payment.documentId,
      document_number: payment.invoiceNumber,
      description: payment.description.slice(0, 255),
      chart,
      service_date: null,
      counterparty_vat_id: null,
    })),
    { onConflictDoNothing: true, returning: 'id' },
  );
  const fresh = new Set(inserted);
  await bulkInsert(
    trx,
    'journal_lines',
    LINE_COLUMNS,
    prepared
      .filter(({ id }) => fresh.has(id))
      .flatMap(({ id, lines }) =>
        lines.map((line, i) => ({
          company_id: companyId,
          entry_id: id,
          position: i + 1,
          account: line.account,
          side: line.side,
          amount_cents: line.amountCents,
          tax_key: line.taxKey,
        })),
      ),
  );
  const written = fresh.size;
  return written;
}
