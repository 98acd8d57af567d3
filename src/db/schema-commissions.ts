import type { ColumnType } from 'kysely';
import type { Timestamp } from './schema-types.ts';

// Row types of the revenue-share tables (migrations/0015_commission_partners.sql,
// 0016_commission_agreements.sql, 0017_commission_ledger.sql, 0030_ledger_facts.sql). Dates
// 'YYYY-MM-DD', bigints numbers (cents), timestamps Date.

export type PartnerKind = 'sales_partner' | 'developer' | 'other';
export type PartnerTaxStatus = 'domestic_regular' | 'domestic_small_business' | 'eu_reverse_charge' | 'third_country' | 'private_person';
export type PartnerBillingMode = 'self_billing' | 'settlement' | 'partner_invoice';
export type StatementCadence = 'month' | 'quarter' | 'year';
export type PayoutRail = 'sepa_credit_transfer' | 'manual';
export type PartnerEInvoiceFormat = 'auto' | 'zugferd' | 'xrechnung' | 'none';
export type PartnerLanguage = 'de' | 'en';
export type PartnerStatus = 'active' | 'archived';

/** A column the app sets later (payee, objection, archive, balance): the API's insert may leave it out. */
type Later<T> = ColumnType<T, T | undefined, T>;

export interface SuppliersTable {
  company_id: string;
  id: string;
  name: string;
  kreditorennummer: number;
  created_at: Timestamp;
}

export interface CommissionPartnersTable {
  company_id: string;
  id: string;
  external_source: string;
  external_ref: string;
  name: string;
  email: string | null;
  kind: PartnerKind;
  tax_status: PartnerTaxStatus;
  billing_mode: PartnerBillingMode;
  self_billing_agreed_on: string | null;
  self_billing_contract_ref: string | null;
  self_billing_objected_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  statement_cadence: StatementCadence;
  min_payout_cents: number;
  payout_rail: PayoutRail;
  e_invoice_format: PartnerEInvoiceFormat;
  /** AES-GCM sealed IBAN (shared/secrets.ts); null until a person sets the payout account. */
  iban_sealed: Later<string | null>;
  iban_masked: Later<string | null>;
  bic: Later<string | null>;
  payee_changed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  language: PartnerLanguage;
  status: Later<PartnerStatus>;
  notes: string | null;
  supplier_id: string;
  kreditorennummer: number;
  street: string | null;
  house_number: string | null;
  zip: string | null;
  city: string | null;
  country_code: string | null;
  vat_id: string | null;
  tax_number: string | null;
  balance_open_cents: Later<number>;
  balance_statemented_cents: Later<number>;
  balance_paid_cents: Later<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type AgreementAppliesTo = 'attributed_customers' | 'all_customers';
export type AgreementAnchor = 'attribution_start' | 'first_paid_revenue';
export type AgreementBasis = 'net_paid';

/** A tier of an agreement as stored: months counted from the anchor (month 1 is its month), percent as exact decimal text. */
export type AgreementTier = { from_month: number; to_month: number | null; percent: string };

export interface CommissionAgreementsTable {
  company_id: string;
  id: string;
  external_source: string;
  external_ref: string;
  partner_id: string;
  name: string | null;
  start_date: string;
  end_date: string | null;
  accrue_from: string | null;
  contract_reference: string | null;
  applies_to: AgreementAppliesTo;
  anchor: AgreementAnchor;
  basis: AgreementBasis;
  condition_id: string | null;
  /** Written as JSON text, read back parsed. */
  tiers: ColumnType<AgreementTier[], string, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CommissionAgreementProductsTable {
  company_id: string;
  agreement_id: string;
  product_id: string;
}

export interface CommissionTables extends CommissionLedgerTables, CommissionStatementTables {
  suppliers: SuppliersTable;
  commission_partners: CommissionPartnersTable;
  commission_agreements: CommissionAgreementsTable;
  commission_agreement_products: CommissionAgreementProductsTable;
}

// migrations/0017_commission_ledger.sql

export type AttributionStatus = 'proposed' | 'active' | 'rejected';
export type AttributionSource = 'api' | 'invoice' | 'app';

export interface CommissionAttributionsTable {
  company_id: string;
  id: string;
  agreement_id: string;
  partner_id: string;
  customer_id: string;
  start_date: string;
  end_date: string | null;
  status: AttributionStatus;
  source: AttributionSource;
  source_ref: string | null;
  conflicts_with_id: string | null;
  confirmed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  decided_by: ColumnType<string | null, string | null | undefined, string | null>;
  decided_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  external_source: string;
  external_ref: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type RevenueEventKind = 'api' | 'invoice_payment' | 'invoice_payment_reversal';

export interface RevenueEventsTable {
  company_id: string;
  id: string;
  kind: RevenueEventKind;
  external_source: string | null;
  external_ref: string | null;
  occurred_at: Timestamp;
  paid_on: string;
  net_cents: number;
  currency: ColumnType<'EUR', 'EUR' | undefined, 'EUR'>;
  customer_id: string | null;
  reverses_id: string | null;
  description: string | null;
  invoice_id: string | null;
  allocation_id: string | null;
  created_at: Timestamp;
  /** Order of writing (migrations/0030_ledger_facts.sql). */
  seq: ColumnType<number, never, never>;
  /** For 'invoice_payment_reversal': the bank side's id of the debit's application to the invoice. */
  reversal_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** For the invoice kinds: the invoice's amount_paid before, the amount paid or taken back, its gross (cents). */
  paid_before_cents: ColumnType<number | null, number | null | undefined, number | null>;
  paid_cents: ColumnType<number | null, number | null | undefined, number | null>;
  gross_cents: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface RevenueEventLinesTable {
  company_id: string;
  event_id: string;
  position: number;
  net_cents: number;
  product_id: string | null;
  description: string | null;
}

export interface CommissionAnchorsTable {
  company_id: string;
  agreement_id: string;
  customer_key: string;
  anchor_date: string;
}

export type EntryStatus = 'open' | 'statemented' | 'paid' | 'void';
export type EntrySourceType = 'invoice' | 'revenue_event';

export interface CommissionEntriesTable {
  company_id: string;
  id: string;
  seq: ColumnType<number, never, never>;
  partner_id: string;
  agreement_id: string;
  customer_id: string | null;
  revenue_event_id: string;
  source_type: EntrySourceType;
  source_id: string | null;
  service_period_start: string;
  paid_at: Timestamp;
  paid_on: string;
  contract_month: number | null;
  percent: string;
  basis_cents: number;
  amount_cents: number;
  status: EntryStatus;
  statement_id: string | null;
  reverses_entry_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** A refund's or reversal's entry: the revenue event whose entry it reverses (0030). */
  reverses_event_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** A correction: the entry it corrects (0030). */
  corrects_entry_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface CommissionLedgerTables {
  commission_attributions: CommissionAttributionsTable;
  revenue_events: RevenueEventsTable;
  revenue_event_lines: RevenueEventLinesTable;
  commission_anchors: CommissionAnchorsTable;
  commission_entries: CommissionEntriesTable;
}

// migrations/0018_commission_statements.sql

export type StatementKindColumn = 'self_billing' | 'settlement' | 'partner_invoice';
export type StatementStatus = 'draft' | 'issued' | 'sent' | 'cancelled' | 'objected';
export type StatementTaxNoteColumn = 'regular' | 'small_business' | 'reverse_charge' | 'private_person';

/** A statement line as stored (commission_statements.lines). */
export type StoredStatementLine = {
  position: number;
  agreement_id: string;
  agreement_name: string | null;
  customer_id: string | null;
  customer_name: string | null;
  contract_month: number | null;
  percent: string;
  basis_cents: number;
  amount_cents: number;
  entry_count: number;
  period_start: string;
  period_end: string;
  description: string;
};

export interface CommissionStatementsTable {
  company_id: string;
  id: string;
  seq: ColumnType<number, never, never>;
  partner_id: string;
  kind: StatementKindColumn;
  type: ColumnType<'statement' | 'cancellation', 'statement' | 'cancellation' | undefined, 'statement' | 'cancellation'>;
  status: StatementStatus;
  number: string | null;
  issue_date: string | null;
  period_start: string;
  period_end: string;
  net_cents: number;
  vat_cents: number;
  gross_cents: number;
  vat_rate: '19' | '0';
  tax_note: StatementTaxNoteColumn;
  /** Written as JSON text, read back parsed. */
  lines: ColumnType<StoredStatementLine[], string, string>;
  e_invoice_format: 'xrechnung' | 'zugferd' | null;
  /** The frozen StatementDocument (statements/statement-document.ts) as JSON text; read back parsed. */
  document: ColumnType<unknown | null, string | null, string | null>;
  cancels_statement_id: string | null;
  cancelled_by_id: ColumnType<string | null, string | null | undefined, string | null>;
  objected_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  sent_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  mail_started_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  sent_to: ColumnType<string | null, string | null | undefined, string | null>;
  paid_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  decided_by: ColumnType<string | null, string | null | undefined, string | null>;
  /** Why the run left it a draft (German, for a person), 0036; null once issued. */
  held_reason: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The partner's own invoice recorded for a request to invoice (migrations/0036_partner_invoices_and_contacts.sql). */
export interface CommissionPartnerInvoicesTable {
  company_id: string;
  statement_id: string;
  partner_id: string;
  number: string;
  invoice_date: string;
  net_cents: number;
  vat_cents: number;
  gross_cents: number;
  mismatch_confirmed: boolean;
  /** The person who recorded it, or null when the partner handed it in through the portal (0048). */
  recorded_by: string | null;
  /** The partner account that uploaded it in the portal (0048); exactly one of the two. */
  recorded_by_partner: ColumnType<string | null, string | null | undefined, string | null>;
  recorded_at: Timestamp;
}

/** An upload of the partner's invoice through the portal, accepted or refused (0048). */
export interface PartnerInvoiceUploadsTable {
  company_id: string;
  id: string;
  statement_id: string;
  account_id: string;
  received_at: Timestamp;
  file_name: string;
  format: 'xrechnung_cii' | 'xrechnung_ubl' | 'zugferd' | 'pdf' | null;
  sha256: string;
  size: number;
  accepted: boolean;
  /** German reasons (JSON text written, read back parsed). */
  reasons: ColumnType<string[], string, string>;
  content: Buffer | null;
}

/** The partner's contact for its e-invoices (seller contact of a Gutschrift), set by a person (0036). */
export interface CommissionPartnerContactsTable {
  company_id: string;
  partner_id: string;
  contact_name: string | null;
  phone: string | null;
  updated_by: string;
  updated_at: Timestamp;
}

export interface CommissionStatementFilesTable {
  company_id: string;
  statement_id: string;
  kind: 'pdf' | 'xml';
  content: Buffer;
  sha256: string;
  created_at: Timestamp;
}

export interface CommissionStatementRunsTable {
  company_id: string;
  partner_id: string;
  period_end: string;
  statement_id: string | null;
  created_at: Timestamp;
}

export interface CommissionStatementTables {
  commission_statements: CommissionStatementsTable;
  commission_statement_files: CommissionStatementFilesTable;
  commission_statement_runs: CommissionStatementRunsTable;
  commission_partner_invoices: CommissionPartnerInvoicesTable;
  partner_invoice_uploads: PartnerInvoiceUploadsTable;
  commission_partner_contacts: CommissionPartnerContactsTable;
}
