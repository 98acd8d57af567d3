import type { ColumnType } from 'kysely';
import type { Timestamp } from './schema-types.ts';

// Row types of the payment tables (migrations/0004_payments.sql, 0033_payment_reversals.sql, 0034_bank_transaction_notes.sql).

/** camt.05x.001.NN (053 statement, 052 intraday report, 054 notification; .02–.13), MT940, MT942. */
export type StatementFormat = `camt.05${'2' | '3' | '4'}.001.${string}` | 'mt940' | 'mt942';
export type BankEntryStatus = 'matched' | 'partially_matched' | 'unmatched' | 'ignored';
export type BankTransactionStatus = 'matched' | 'unmatched' | 'ignored';

export interface BankStatementsTable {
  company_id: string;
  id: string;
  file_sha256: string;
  file_name: string | null;
  format: StatementFormat;
  account_iban: string | null;
  statement_ref: string;
  entry_count: number;
  duplicate_count: number;
  matched_count: number;
  partially_matched_count: number;
  unmatched_count: number;
  ignored_count: number;
  imported_at: Timestamp;
}

export interface BankEntriesTable {
  company_id: string;
  id: string;
  statement_id: string;
  entry_key: string;
  position: number;
  account: string;
  booking_date: string;
  value_date: string | null;
  direction: 'credit' | 'debit';
  reversal: boolean;
  bank_status: string;
  /** Exact decimal string. */
  amount: string;
  currency: string;
  bank_reference: string | null;
  booking_text: string | null;
  status: BankEntryStatus;
  note: string | null;
}

export interface BankTransactionsTable {
  company_id: string;
  entry_id: string;
  position: number;
  amount: string;
  currency: string;
  remittance_text: string | null;
  end_to_end_id: string | null;
  creditor_reference: string | null;
  payer_name: string | null;
  payer_iban: string | null;
  status: BankTransactionStatus;
  note: string | null;
  unassigned_cents: number;
  /** Why it waits for a person, as import notes (codes with values, payments/import-notes.ts); null: none (0034). */
  notes: ColumnType<unknown, string | null | undefined, string | null>;
}

export interface PaymentAllocationsTable {
  company_id: string;
  id: string;
  entry_id: string;
  transaction_position: number;
  invoice_id: string;
  amount_cents: number;
  booking_date: string;
  created_at: Timestamp;
  /** The invoice had been marked overdue before this payment (0033): a reversal restores the flag. */
  invoice_was_overdue: ColumnType<boolean, boolean | undefined, boolean>;
}

export type ReversalKind = 'refund' | 'return';

/** A debit's part applied to one invoice: amount paid and customer credit taken back (0033). */
export interface PaymentReversalsTable {
  company_id: string;
  id: string;
  entry_id: string;
  transaction_position: number;
  invoice_id: string;
  invoice_cents: number;
  credit_cents: number;
  booking_date: string;
  kind: ReversalKind;
  return_marker: string | null;
  return_reason: string | null;
  status_before: 'issued' | 'sent' | 'partially_paid' | 'paid';
  paid_before_cents: number;
  assigned_by: string | null;
  created_at: Timestamp;
}

export interface CustomerCreditsTable {
  company_id: string;
  id: string;
  customer_id: string;
  amount_cents: number;
  booking_date: string;
  entry_id: string;
  transaction_position: number;
  allocation_id: string;
  created_at: Timestamp;
}

export type PaymentsTables = {
  bank_statements: BankStatementsTable;
  bank_entries: BankEntriesTable;
  bank_transactions: BankTransactionsTable;
  payment_allocations: PaymentAllocationsTable;
  customer_credits: CustomerCreditsTable;
  payment_reversals: PaymentReversalsTable;
};
