import type { Insertable } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { BankEntryStatus, BankTransactionStatus } from '../../db/schema-payments.ts';
import { newId } from '../../shared/ids.ts';
import type { PaymentToBook } from '../bookkeeping/index.ts';
import { centsToAmount, displayAmount, toCents } from './amounts.ts';
import { type ImportNote, importNote, notesText, noteText } from './import-notes.ts';
import type { NumberHit } from './invoice-number-finder.ts';
import { type ClosedInvoice, matchTransfer, type OpenInvoice } from './match-payments.ts';
import { planDebit } from './plan-debits.ts';
import type { ParsedEntry, ParsedTransaction } from './statement.ts';

// What an import writes, worked out in memory (pure apart from new ids): the rows of the
// new entries and their transactions, the payments and credits, the journal entries and
// what each entry came to, in the shape the command prints.

export type PaymentOutcome = { invoice_id: string; invoice_number: string; amount: string; effect: 'paid' | 'partially_paid'; open_after: string };
/** What a debit took back from one invoice (issue 24): `amount` of its amount paid, `credit` of the customer credit its over-payment left. */
export type ReversalOutcome = {
  invoice_id: string;
  invoice_number: string;
  amount: string;
  credit: string;
  status_after: 'issued' | 'sent' | 'partially_paid' | 'paid';
  paid_after: string;
};
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
  /** A debit's reversals (empty for a credit). */
  reversals: ReversalOutcome[];
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

/**
 * Why a new entry is not matched at all, or null when its transactions are: booked EUR
 * credits (a reversal of an earlier debit is left to a person) and booked EUR debits (each
 * matched when it names an invoice or is a return, plan-debits.ts; else "debit ignored").
 */
export function ignoreNote(entry: ParsedEntry): ImportNote | null {
  if (entry.status === 'PDNG') return importNote('pending_ignored', {});
  if (entry.status !== 'BOOK') return importNote('status_ignored', { status: entry.status });
  if (entry.reversal && entry.direction === 'credit') return importNote('reversal_ignored', { of: 'debit' });
  if (entry.currency !== 'EUR')
    return entry.direction === 'debit' ? importNote('debit_ignored', {}) : importNote('currency_ignored', { currency: entry.currency });
  if (toCents(entry.amount) === 0) return importNote('zero_amount_ignored', {});
  return null;
}

/** The same in English, as the import prints and stores it. */
export function ignoreReason(entry: ParsedEntry): string | null {
  const note = ignoreNote(entry);
  return note && noteText(note);
}

export type TouchedInvoice = { invoice: OpenInvoice; paidOn: string | null };

/** A reversal for the revenue share (commissions' reverseInvoicePayments): what the invoice had before, what was taken back. */
export type ReversalShare = {
  reversalId: string;
  invoiceId: string;
  customerId: string;
  amountCents: number;
  paidBeforeCents: number;
  grossCents: number;
  reversedOn: string;
};

export type ImportPlan = {
  entryRows: Insertable<DB['bank_entries']>[];
  transactionRows: Insertable<DB['bank_transactions']>[];
  allocationRows: Insertable<DB['payment_allocations']>[];
  creditRows: Insertable<DB['customer_credits']>[];
  reversalRows: Insertable<DB['payment_reversals']>[];
  payments: PaymentToBook[];
  /** The reversals' bookings (debtor against bank). */
  reversalBookings: PaymentToBook[];
  /** Every payment with what the invoice had before, for the revenue share (commissions' ledger). */
  shares: { allocationId: string; invoiceId: string; customerId: string; amountCents: number; paidBeforeCents: number; grossCents: number; paidOn: string }[];
  reversalShares: ReversalShare[];
  /** Invoices whose amount paid changed, with their final state; paidOn = the date they last became paid. */
  touched: Map<string, TouchedInvoice>;
  /** The invoices each credit of this file paid, by its end-to-end reference (a return later in the file finds them). */
  paidByEndToEnd: Map<string, OpenInvoice[]>;
  outcomes: EntryOutcome[];
};

export type PlanInput = {
  companyId: string;
  statementId: string;
  /** The entries not imported before, in file order. */
  entries: readonly ParsedEntry[];
  hitsOf: (transaction: ParsedTransaction) => NumberHit[];
  /** Open invoices, and the paid ones the file's debits name, by normalised number. */
  open: ReadonlyMap<string, OpenInvoice>;
  closed: ReadonlyMap<string, ClosedInvoice>;
  /** Invoices earlier credits with this end-to-end reference paid (imported before). */
  paidByEndToEnd: ReadonlyMap<string, OpenInvoice[]>;
  now: Date;
};

function entryStatus(transactions: TransactionOutcome[]): BankEntryStatus {
  if (transactions.every((t) => t.status === 'matched')) return 'matched';
  if (transactions.some((t) => t.status === 'matched' || t.reversals.length > 0)) return 'partially_matched';
  return transactions.every((t) => t.status === 'ignored') ? 'ignored' : 'unmatched';
}

export function planImport(input: PlanInput): ImportPlan {
  const plan: ImportPlan = {
    entryRows: [],
    transactionRows: [],
    allocationRows: [],
    creditRows: [],
    reversalRows: [],
    payments: [],
    reversalBookings: [],
    shares: [],
    reversalShares: [],
    touched: new Map(),
    paidByEndToEnd: new Map(),
    outcomes: [],
  };
  for (const entry of input.entries) {
    const entryId = newId('bke');
    const ignoredNote = ignoreNote(entry);
    const ignored = ignoredNote && noteText(ignoredNote);
    const transactions = entry.transactions.map((tx, i) =>
      entry.direction === 'debit' && !ignoredNote
        ? planDebit(input, plan, entry, entryId, tx, i + 1)
        : planTransaction(input, plan, entry, entryId, ignoredNote, tx, i + 1),
    );
    const status = ignored ? 'ignored' : entryStatus(transactions);
    // The note of the entry: why it is ignored, or why (the first of) its transactions wait for a person.
    const first = status === 'matched' ? undefined : transactions.find((t) => t.status === (status === 'ignored' ? 'ignored' : 'unmatched'));
    const note = ignored ?? first?.note ?? null;
    const notes = ignoredNote ? [ignoredNote] : (first?.notes ?? []);
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

/** What every transaction's outcome starts with. */
export function outcomeBase(tx: ParsedTransaction, position: number) {
  return {
    position,
    amount: displayAmount(tx.amount),
    payer_name: tx.counterpartyName,
    payer_iban: tx.counterpartyIban,
    remittance_text: tx.remittanceText,
    end_to_end_id: tx.endToEndId,
  };
}

/** Adds the transaction's row (bank_transactions) to the plan. */
export function transactionRow(
  input: PlanInput,
  plan: ImportPlan,
  entryId: string,
  tx: ParsedTransaction,
  position: number,
  status: BankTransactionStatus,
  note: string | null,
  unassignedCents: number,
  /** Why it waits for a person (kept for an unmatched transaction only). */
  notes: readonly ImportNote[] = [],
): void {
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
    notes: status === 'unmatched' && notes.length ? JSON.stringify(notes) : null,
  });
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
  const base = outcomeBase(tx, position);
  const row = (status: BankTransactionStatus, note: string | null, unassignedCents: number, notes: readonly ImportNote[] = []) =>
    transactionRow(input, plan, entryId, tx, position, status, note, unassignedCents, notes);

  if (entryIgnored || cents === null || cents === 0) {
    const ignored = entryIgnored ?? importNote('zero_amount_ignored', {});
    const note = noteText(ignored);
    row('ignored', note, 0);
    return { ...base, status: 'ignored', note, notes: [ignored], payments: [], credit: null, reversals: [] };
  }
  const match = matchTransfer({ amountCents: cents, hits: input.hitsOf(tx) }, input.open, input.closed);
  if (!match.matched) {
    row('unmatched', match.reason, cents, match.reasons);
    return { ...base, status: 'unmatched', note: match.reason, notes: match.reasons, payments: [], credit: null, reversals: [] };
  }

  const note = notesText(match.noted);
  row('matched', note, 0);
  const paidByThis: OpenInvoice[] = [];
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
      invoice_was_overdue: invoice.wasOverdue,
    });
    paidByThis.push(invoice);
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
      invoice.creditCents += surplus;
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
  if (tx.endToEndId) plan.paidByEndToEnd.set(tx.endToEndId, [...(plan.paidByEndToEnd.get(tx.endToEndId) ?? []), ...paidByThis]);
  return { ...base, status: 'matched', note, notes: match.noted, payments, credit, reversals: [] };
}
