import type { ColumnType, Generated } from 'kysely';
import type { DunningPolicy } from '../modules/dunning/policy.ts';
import type { BookkeepingTables } from './schema-bookkeeping.ts';
import type { CommissionTables } from './schema-commissions.ts';
import type { ContractTables } from './schema-contracts.ts';
import type { DunningNoticesTable, DunningStopsTable } from './schema-dunning.ts';
import type { InvoicingTables } from './schema-invoicing.ts';
import type { PaymentsTables } from './schema-payments.ts';
import type { PayoutTables } from './schema-payouts.ts';
import type { PortalTables } from './schema-portal.ts';
import type { Json, Tier, Timestamp } from './schema-types.ts';
import type { WebTables } from './schema-web.ts';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './schema-webhooks.ts';

// Row types of the tables in migrations/. Calendar dates are 'YYYY-MM-DD' strings,
// numerics are exact decimal strings, timestamps are Date.

export type { Json, Tier, Timestamp } from './schema-types.ts';

/** How often the Umsatzsteuer-Voranmeldung is filed (§ 18 Abs. 2 UStG). */
export type VatReturnPeriod = 'monthly' | 'quarterly' | 'annual';

export type SmtpSettings = {
  host: string;
  port: number;
  secure: boolean;
  user: string | null;
  /** AES-GCM sealed with the instance secret (shared/secrets.ts). */
  password_sealed: string | null;
  from: string;
};

export interface OrganizationsTable {
  id: string;
  name: string;
  created_at: Timestamp;
}
export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  created_at: Timestamp;
  /** The one-time password of the bootstrap must be replaced at the first sign-in (0021). */
  password_change_required: ColumnType<boolean, boolean | undefined, boolean>;
}
export interface MembershipsTable {
  organization_id: string;
  user_id: string;
  role: 'admin' | 'member';
  active: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export interface CompaniesTable {
  id: string;
  organization_id: string;
  name: string;
  legal_form: string | null;
  street: string | null;
  house_number: string | null;
  zip: string | null;
  city: string | null;
  country_code: ColumnType<string, string | undefined, string>;
  vat_id: string | null;
  tax_number: string | null;
  email: string | null;
  phone: string | null;
  contact_name: string | null;
  iban: string | null;
  bic: string | null;
  bank_name: string | null;
  small_business: ColumnType<boolean, boolean | undefined, boolean>;
  chart: ColumnType<'SKR03' | 'SKR04', 'SKR03' | 'SKR04' | undefined, 'SKR03' | 'SKR04'>;
  timezone: ColumnType<string, string | undefined, string>;
  invoice_number_pattern: ColumnType<string, string | undefined, string>;
  contract_number_pattern: ColumnType<string, string | undefined, string>;
  payment_terms_days: ColumnType<number, number | undefined, number>;
  smtp: Json<SmtpSettings | null> | null;
  eu_distance_threshold_exceeded: ColumnType<boolean, boolean | undefined, boolean>;
  /** How often the Umsatzsteuer-Voranmeldung is filed (migration 0050). */
  vat_return_period: ColumnType<VatReturnPeriod, VatReturnPeriod | undefined, VatReturnPeriod>;
  /** Dauerfristverlängerung granted: each Voranmeldung is due one month later. */
  vat_return_extension: ColumnType<boolean, boolean | undefined, boolean>;
  /** API attributions stay `proposed` until a person confirms them (issue 14). */
  attributions_need_confirmation: ColumnType<boolean, boolean | undefined, boolean>;
  /** Statements of the statement run stay `draft` until a person issues them (issue 14). */
  statements_need_review: ColumnType<boolean, boolean | undefined, boolean>;
  /** Payee name of the bank account (BT-85); null = the company's name. */
  account_holder: string | null;
  register_court: string | null;
  register_number: string | null;
  managing_directors: ColumnType<string[], string[] | undefined, string[]>;
  datev_consultant_number: number | null;
  datev_client_number: number | null;
  /** MM-DD, the first day of the fiscal year. */
  fiscal_year_start: ColumnType<string, string | undefined, string>;
  /** The dunning policy from the company file (modules/dunning/policy.ts); null = defaults. */
  dunning: Json<DunningPolicy | null> | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export interface CompanyAccessTable {
  company_id: string;
  user_id: string;
  created_at: Timestamp;
}
export interface ApiKeysTable {
  id: string;
  organization_id: string;
  creator_user_id: string;
  company_id: string | null;
  all_companies: boolean;
  key_hash: string;
  key_prefix: string;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: Timestamp;
}
export interface NumberRangesTable {
  company_id: string;
  range_key: string;
  next_value: number;
  last_value: number;
}
export interface CustomersTable {
  company_id: string;
  id: string;
  kundennummer: number;
  external_source: string;
  external_ref: string;
  name: string;
  email: string | null;
  street: string | null;
  house_number: string | null;
  zip: string | null;
  city: string | null;
  country_code: string | null;
  vat_id: string | null;
  customer_type: 'business' | 'private';
  leitweg_id: string | null;
  contact_name: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export interface ProductsTable {
  company_id: string;
  id: string;
  external_source: string;
  external_ref: string;
  product_number: string;
  name: string;
  description: string | null;
  unit: string | null;
  unit_price_net: string;
  vat_rate: number;
  billing_interval: 'one_off' | 'month' | 'quarter' | 'year';
  pricing_model: 'flat' | 'per_unit' | 'package' | 'graduated' | 'volume' | 'quota';
  included_quantity: string | null;
  overage_price: string | null;
  tiers: Json<Tier[] | null> | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export interface JobsTable {
  id: Generated<number>;
  company_id: string | null;
  name: string;
  payload: ColumnType<unknown, string | undefined, string>;
  dedupe_key: string | null;
  status: ColumnType<'pending' | 'running' | 'done' | 'failed', 'pending' | undefined, 'pending' | 'running' | 'done' | 'failed'>;
  run_at: Timestamp;
  attempts: ColumnType<number, number | undefined, number>;
  max_attempts: ColumnType<number, number | undefined, number>;
  locked_by: string | null;
  locked_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The liveness token (db/liveness.ts) of the process that claimed the running job (migration 0039). */
  locked_owner: ColumnType<string | null, string | null | undefined, string | null>;
  /** Due jobs are claimed highest priority first, then by run_at and id (migration 0043). */
  priority: ColumnType<number, number | undefined, number>;
  last_error: string | null;
  created_at: Timestamp;
  finished_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}
export interface EventsTable {
  company_id: string;
  id: string;
  seq: Generated<number>;
  type: string;
  subject_id: string | null;
  data: ColumnType<unknown, string, string>;
  created_at: Timestamp;
  /** When the webhook dispatcher fanned the event out to the endpoints (null until then). */
  dispatched_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}
export interface SchedulerRunsTable {
  company_id: string;
  task: string;
  run_date: string;
  ran_at: Timestamp;
  summary: ColumnType<unknown, string | null | undefined, string | null>;
}
export interface SchemaMigrationsTable {
  version: string;
  applied_at: Timestamp;
}

export interface DB extends InvoicingTables, BookkeepingTables, PaymentsTables, ContractTables, CommissionTables, WebTables, PayoutTables, PortalTables {
  organizations: OrganizationsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  companies: CompaniesTable;
  company_access: CompanyAccessTable;
  api_keys: ApiKeysTable;
  number_ranges: NumberRangesTable;
  customers: CustomersTable;
  products: ProductsTable;
  jobs: JobsTable;
  events: EventsTable;
  scheduler_runs: SchedulerRunsTable;
  dunning_notices: DunningNoticesTable;
  dunning_stops: DunningStopsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  schema_migrations: SchemaMigrationsTable;
}
