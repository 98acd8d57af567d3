// Row types of the payout tables (migrations/0024_payout_runs.sql).

export interface PayoutRunsTable {
  company_id: string;
  id: string;
  message_id: string;
  execution_date: string;
  payment_count: number;
  total_cents: number;
  /** The pain.001.001.09 XML as handed out. */
  file: string;
  created_by: string;
  created_at: Date;
}

export interface PayoutRunItemsTable {
  company_id: string;
  run_id: string;
  statement_id: string;
  partner_id: string;
  amount_cents: number;
  end_to_end_id: string;
  /** The creditor account paid to, masked (DE12 •••• 3456); 0047. */
  iban_masked: string | null;
}

export interface PayoutTables {
  payout_runs: PayoutRunsTable;
  payout_run_items: PayoutRunItemsTable;
}
