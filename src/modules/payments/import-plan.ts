import type { Insertable } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { BankEntryStatus, BankTransactionStatus } from '../../db/schema-payments.ts';
import type { PaymentToBook } from '../bookkeeping/index.ts';
import { displayAmount, toCents } from './amounts.ts';
import { type ImportNote, importNote, noteText } from './import-notes.ts';
import type { NumberHit } from './invoice-number-finder.ts';
import type { ClosedInvoice, OpenInvoice } from './match-payments.ts';
import type { ParsedEntry, ParsedTransaction } from './statement.ts';

// The shape of what an import writes (planned in plan-import.ts and plan-debits.ts): the
// outcome of each entry and transaction as the command prints it, the plan's rows, and the
// two helpers every planned transaction uses.

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
