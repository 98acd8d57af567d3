import type { Insertable } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { BankEntryStatus, BankTransactionStatus } from '../../db/schema-payments.ts';
import { newId } from '../../shared/ids.ts';
import type { PaymentToBook } from '../bookkeeping/index.ts';
import { centsToAmount, displayAmount, toCents } from './amounts.ts';
import { type ImportNote, importNote, notesText, noteText } from './import-notes.ts';
import type { NumberHit } from './invoice-number-finder.ts';
import { type ClosedInvoice, matchTransfer, type OpenInvoice } from './match-payments.ts';
import type { ParsedEntry, ParsedTransaction } from './statement.ts';

// What an import writes, worked out in memory (pure apart from new ids): the rows of the
// new entries and their transactions, the payments and credits, the journal entries and
// what each entry came to, in the shape the command prints.

export type PaymentOutcome = { invoice_id: string; invoice_number: string; amount: string; effect: 'paid' | 'partially_paid'; open_after: string };
export type TransactionOutcome = {
  position: number;
  amount: string;
  payer_name: string | null;
  payer_iban: string | null;
  remittance_text: string | null;
  end_to_end_id: string | null;
  status: BankTransactionStatus;
  /** What `kontor bank import` prints (English); `notes`: the same as codes with values (import-notes.ts). */
  note: string | null;
  notes: ImportNote[];
  payments: PaymentOutcome[];
  credit: { customer_id: string; customer_name: string; amount: string } | null;
};
export type EntryOutcome = {
  position: number;
  booking_date: string;
  direction: 'credit' | 'debit';
  amount: string;
  currency: string;
  status: BankEntryStatus | 'duplicate';
  note: string | null;
  notes: ImportNote[];
  transactions: TransactionOutcome[];
};

/** Why a new entry is not matched at all, or null when its credits are matched. */
export function ignoreNote(entry: ParsedEntry): ImportNote | null {
  if (entry.status === 'PDNG') return importNote('pending_ignored', {});
  if (entry.status !== 'BOOK') return importNote('status_ignored', { status: entry.status });
  if (entry.reversal) return importNote('reversal_ignored', { of: entry.direction === 'credit' ? 'debit' : 'credit' });
  if (entry.direction === 'debit') return importNote('debit_ignored', {});
  if (entry.currency !== 'EUR') return importNote('currency_ignored', { currency: entry.currency });
  if (toCents(entry.amount) === 0) return importNote('zero_amount_ignored', {});
  return null;
}

/** The same in English, as the import prints and stores it. */
export function ignoreReason(entry: ParsedEntry): string | null {
  const note = ignoreNote(entry);
  return note && noteText(note);
}

export type TouchedInvoice = { invoice: OpenInvoice; paidOn: string | null };

export type ImportPlan = {
  entryRows: Insertable<DB['bank_entries']>[];
  transactionRows: Insertable<DB['bank_transactions']>[];
  allocationRows: Insertable<DB['payment_allocations']>[];
  creditRows: Insertable<DB['customer_credits']>[];
  payments: PaymentToBook[];
  /** Every payment with what the invoice had before, for the revenue share (commissions' ledger). */
  shares: { allocationId: string; invoiceId: string; customerId: string; amountCents: number; paidBeforeCents: number; grossCents: number; paidOn: string }[];
  /** Invoices that received money, with their final state; paidOn = the date they became paid. */
  touched: Map<string, TouchedInvoice>;
  outcomes: EntryOutcome[];
};

export type PlanInput = {
  companyId: string;
  statementId: string;
  /** The entries not imported before, in file order. */
  entries: readonly ParsedEntry[];
  hitsOf: (transaction: ParsedTransaction) => NumberHit[];
  open: ReadonlyMap<string, OpenInvoice>;
  closed: ReadonlyMap<string, ClosedInvoice>;
  now: Date;
};

function entryStatus(statuses: BankTransactionStatus[]): BankEntryStatus {
  if (statuses.every((s) => s === 'matched')) return 'matched';
  if (statuses.some((s) => s === 'matched')) return 'partially_matched';
  return statuses.every((s) => s === 'ignored') ? 'ignored' : 'unmatched';
}

export function planImport(input: PlanInput): ImportPlan {
  const plan: ImportPlan = {
    entryRows: [],
    transactionRows: [],
    allocationRows: [],
    creditRows: [],
    payments: [],
    shares: [],
    touched: new Map(),
    outcomes: [],
  };
  for (const entry of input.entries) {
    const entryId = newId('bke');
    const ignoredNote = ignoreNote(entry);
    const ignored = ignoredNote && noteText(ignoredNote);
    const transactions = entry.transactions.map((tx, i) => planTransaction(input, plan, entry, entryId, ignoredNote, tx, i + 1));
    const status = ignored ? 'ignored' : entryStatus(transactions.map((t) => t.status));
    const firstUnmatched = status === 'matched' ? undefined : transactions.find((t) => t.status === 'unmatched');
    const note = ignored ?? firstUnmatched?.note ?? null;
    const notes = ignoredNote ? [ignoredNote] : (firstUnmatched?.notes ?? []);
    plan.entryRows.push({
      company_id: input.companyId,
      id: entryId,
      statement_id: input.statementId,
      entry_key: entry.key,
      position: entry.position,
      account: entry.account,
      booking_date: entry.bookingDate,
      value_date: entry.valueDate,
      direction: entry.direction,
      reversal: entry.reversal,
      bank_status: entry.status,
      amount: entry.amount,
      currency: entry.currency,
      bank_reference: entry.bankReference,
      booking_text: entry.bookingText,
      status,
      note,
    });
    plan.outcomes.push({
      position: entry.position,
      booking_date: entry.bookingDate,
      direction: entry.direction,
      amount: displayAmount(entry.amount),
      currency: entry.currency,
      status,
      note,
      notes,
      transactions,
    });
  }
  return plan;
}

function planTransaction(
  input: PlanInput,
  plan: ImportPlan,
  entry: ParsedEntry,
  entryId: string,
  entryIgnored: ImportNote | null,
  tx: ParsedTransaction,
  position: number,
): TransactionOutcome {
  const cents = entryIgnored ? null : toCents(tx.amount);
  const base = {
    position,
    amount: displayAmount(tx.amount),
    payer_name: tx.counterpartyName,
    payer_iban: tx.counterpartyIban,
    remittance_text: tx.remittanceText,
    end_to_end_id: tx.endToEndId,
  };
  const row = (status: BankTransactionStatus, note: string | null, unassignedCents: number) =>
    plan.transactionRows.push({
      company_id: input.companyId,
      entry_id: entryId,
      position,
      amount: tx.amount,
      currency: tx.currency,
      remittance_text: tx.remittanceText,
      end_to_end_id: tx.endToEndId,
      creditor_reference: tx.creditorReference,
      payer_name: tx.counterpartyName,
      payer_iban: tx.counterpartyIban,
      status,
      note,
      unassigned_cents: unassignedCents,
    });

  if (entryIgnored || cents === null || cents === 0) {
    const ignored = entryIgnored ?? importNote('zero_amount_ignored', {});
    const note = noteText(ignored);
    row('ignored', note, 0);
    return { ...base, status: 'ignored', note, notes: [ignored], payments: [], credit: null };
  }
  const match = matchTransfer({ amountCents: cents, hits: input.hitsOf(tx) }, input.open, input.closed);
  if (!match.matched) {
    row('unmatched', match.reason, cents);
    return { ...base, status: 'unmatched', note: match.reason, notes: match.reasons, payments: [], credit: null };
  }

  const note = notesText(match.noted);
  row('matched', note, 0);
  const payments: PaymentOutcome[] = [];
  let credit: TransactionOutcome['credit'] = null;
  match.allocations.forEach((allocation, i) => {
    const { invoice } = allocation;
    const allocationId = newId('pay');
    const last = i === match.allocations.length - 1;
    plan.allocationRows.push({
      company_id: input.companyId,
      id: allocationId,
      entry_id: entryId,
      transaction_position: position,
      invoice_id: invoice.id,
      amount_cents: allocation.amountCents,
      booking_date: entry.bookingDate,
      created_at: input.now,
    });
    plan.shares.push({
      allocationId,
      invoiceId: invoice.id,
      customerId: invoice.customerId,
      amountCents: allocation.amountCents,
      paidBeforeCents: invoice.grossCents - allocation.openAfterCents - allocation.amountCents,
      grossCents: invoice.grossCents,
      paidOn: entry.bookingDate,
    });
    // The surplus travels with the last payment: bank against debtor for all that came in.
    const surplus = last ? match.creditCents : 0;
    if (surplus > 0) {
      plan.creditRows.push({
        company_id: input.companyId,
        id: newId('ccr'),
        customer_id: invoice.customerId,
        amount_cents: surplus,
        booking_date: entry.bookingDate,
        entry_id: entryId,
        transaction_position: position,
        allocation_id: allocationId,
        created_at: input.now,
      });
      credit = { customer_id: invoice.customerId, customer_name: invoice.customerName, amount: centsToAmount(surplus) };
    }
    plan.payments.push({
      documentId: allocationId,
      invoiceNumber: invoice.number,
      customerNumber: String(invoice.customerNumber),
      amountCents: allocation.amountCents + surplus,
      date: entry.bookingDate,
      description: `Zahlungseingang ${invoice.number} ${invoice.customerName}`,
    });
    const touched = plan.touched.get(invoice.id) ?? { invoice, paidOn: null };
    if (allocation.effect === 'paid') touched.paidOn = entry.bookingDate;
    plan.touched.set(invoice.id, touched);
    payments.push({
      invoice_id: invoice.id,
      invoice_number: invoice.number,
      amount: centsToAmount(allocation.amountCents),
      effect: allocation.effect,
      open_after: centsToAmount(allocation.openAfterCents),
    });
  });
  return { ...base, status: 'matched', note, notes: match.noted, payments, credit };
}
