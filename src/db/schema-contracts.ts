import type { ColumnType } from 'kysely';
import type { Tier, Timestamp } from './schema-types.ts';

// Row types of the contract tables (migrations/0013_contracts.sql, 0014_contract_billing.sql,
// 0027_contract_quantities.sql). Dates 'YYYY-MM-DD', numerics exact decimal strings.

export type ContractStatus = 'draft' | 'active' | 'paused' | 'cancelled' | 'ended';
export type ContractInterval = 'month' | 'quarter' | 'year';
export type InvoiceMode = 'draft' | 'issue' | 'issue_send';
export type BillingTiming = 'advance' | 'arrears';
export type CycleStatus = 'billed' | 'skipped' | 'paused' | 'failed';
/** A pause of a contract: days from `from` to `until` (null: still paused) are not billed. */
export type ContractPause = { from: string; until: string | null };
/** An item's quantity from a day on (contract_items.quantities). */
export type QuantityFrom = { from: string; quantity: string };
/** Days from `from` to `to` (inclusive) billed at one quantity (contract_items.billed_quantities). */
export type QuantityRun = { from: string; to: string; quantity: string };

export interface ContractsTable {
  company_id: string;
  id: string;
  number: string;
  external_source: string;
  external_ref: string;
  customer_id: string;
  name: string;
  status: ContractStatus;
  billing_interval: ContractInterval;
  start_date: string;
  billing_starts_on: string | null;
  end_date: string | null;
  invoice_mode: InvoiceMode;
  payment_terms_days: number | null;
  next_billing_date: string | null;
  usage_open_from: string | null;
  billed_until: string | null;
  activated_at: Timestamp | null;
  pauses: ColumnType<ContractPause[], string | undefined, string>;
  last_billing_date: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ContractItemsTable {
  company_id: string;
  contract_id: string;
  ref: string;
  position: number;
  product_id: string | null;
  description: string;
  quantity: string;
  unit: string | null;
  billing_timing: BillingTiming;
  unit_price_net: string;
  vat_rate: 0 | 7 | 19;
  pricing_model: 'flat' | 'per_unit' | 'package' | 'graduated' | 'volume' | 'quota';
  included_quantity: string | null;
  overage_price: string | null;
  tiers: ColumnType<Tier[] | null, string | null, string | null>;
  starts_on: string;
  ends_after: string | null;
  billed_until: string | null;
  /** Null: one quantity since the item's start. */
  quantities: ColumnType<QuantityFrom[] | null, string | null | undefined, string | null>;
  /** Null: billed as the item stands (rows from before issue 24). */
  billed_quantities: ColumnType<QuantityRun[] | null, string | null | undefined, string | null>;
}

export interface ContractCyclesTable {
  company_id: string;
  contract_id: string;
  billing_date: string;
  start_date: string;
  end_date: string;
  status: CycleStatus;
  invoice_id: string | null;
  total_net: string | null;
  reason: string | null;
  attempts: ColumnType<number, number | undefined, number>;
  updated_at: Timestamp;
}

export interface UsageRecordsTable {
  company_id: string;
  contract_id: string;
  external_ref: string;
  item_ref: string;
  quantity: string;
  occurred_at: Timestamp;
  occurred_on: string;
  recorded_at: Timestamp;
}

/** Credit a contract's invoice could not carry in full; amounts never change (uses are rows of their own). */
export interface ContractCreditsTable {
  company_id: string;
  contract_id: string;
  billing_date: string;
  position: number;
  item_ref: string;
  vat_rate: 0 | 7 | 19;
  description: string;
  service_period_start: string;
  service_period_end: string;
  amount_cents: ColumnType<number, number, never>;
  created_at: Timestamp;
}

export interface ContractCreditUsesTable {
  company_id: string;
  contract_id: string;
  billing_date: string;
  position: number;
  invoice_id: string;
  used_on: string;
  amount_cents: ColumnType<number, number, never>;
  created_at: Timestamp;
}

export interface ContractTables {
  contracts: ContractsTable;
  contract_items: ContractItemsTable;
  contract_cycles: ContractCyclesTable;
  usage_records: UsageRecordsTable;
  contract_credits: ContractCreditsTable;
  contract_credit_uses: ContractCreditUsesTable;
}
