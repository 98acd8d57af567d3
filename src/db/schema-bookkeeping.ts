import type { Timestamp } from './schema-types.ts';

// Row types of the bookkeeping tables (migrations/0003_bookkeeping.sql, 0019_statement_journal.sql).

export type Chart = 'SKR03' | 'SKR04';
/** commission_statement: a revenue-share statement or its cancellation (both one type; the id tells them apart). */
export type JournalDocumentType = 'invoice' | 'storno' | 'payment' | 'commission_statement';
/** Soll (debit) or Haben (credit). */
export type Side = 'S' | 'H';

export interface JournalEntriesTable {
  company_id: string;
  id: string;
  entry_date: string;
  document_type: JournalDocumentType;
  document_id: string;
  document_number: string;
  description: string;
  chart: Chart;
  service_date: string | null;
  counterparty_vat_id: string | null;
  /** The document whose open item this entry settles (DATEV Belegfeld 1); absent/null: its own number (0037). */
  settles_number?: string | null;
  created_at: Timestamp;
}

export interface JournalLinesTable {
  company_id: string;
  entry_id: string;
  position: number;
  account: string;
  side: Side;
  amount_cents: number;
  tax_key: string | null;
}

export interface PeriodLocksTable {
  company_id: string;
  locked_until: string;
  updated_at: Timestamp;
}
export interface PeriodLockHistoryTable {
  company_id: string;
  locked_until: string;
  previous_until: string | null;
  locked_at: Timestamp;
  locked_by: string | null;
}

export type BookkeepingTables = {
  journal_entries: JournalEntriesTable;
  journal_lines: JournalLinesTable;
  period_locks: PeriodLocksTable;
  period_lock_history: PeriodLockHistoryTable;
};
