import type { ColumnType } from 'kysely';
import type { Timestamp } from './schema.ts';

// Row types of the revenue-share tables (migrations/0015_commission_partners.sql,
// 0016_commission_agreements.sql). Dates
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

export interface CommissionTables {
  suppliers: SuppliersTable;
  commission_partners: CommissionPartnersTable;
  commission_agreements: CommissionAgreementsTable;
  commission_agreement_products: CommissionAgreementProductsTable;
}
