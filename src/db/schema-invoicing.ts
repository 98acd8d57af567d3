import type { ColumnType } from 'kysely';
import type { InvoiceDocument } from '../modules/invoicing/document.ts';
import type { Json, Timestamp } from './schema-types.ts';

// Row types of the invoicing tables (migrations/0002_invoicing.sql, 0026_app_invoices.sql).

export type InvoiceOrigin = 'api' | 'app';

export type InvoiceStatus = 'draft' | 'issued' | 'sent' | 'partially_paid' | 'paid' | 'cancelled';

export interface InvoicesTable {
  company_id: string;
  id: string;
  number: string | null;
  status: InvoiceStatus;
  type: 'invoice' | 'storno';
  external_source: string | null;
  external_ref: string | null;
  customer_id: string;
  contract_external_ref: string | null;
  contract_id: ColumnType<string | null, string | null | undefined, string | null>;
  currency: ColumnType<string, string | undefined, string>;
  issue_date: string | null;
  due_date: string | null;
  service_period_start: string;
  service_period_end: string;
  payment_terms_days: number;
  total_net_cents: number;
  total_tax_cents: number;
  total_gross_cents: number;
  amount_paid_cents: ColumnType<number, number | undefined, number>;
  vat_verdict: InvoiceDocument['verdict'] | null;
  e_invoice: InvoiceDocument['eInvoice'] | null;
  document: Json<InvoiceDocument | null> | null;
  sent_at: Date | null;
  paid_at: Date | null;
  overdue: ColumnType<boolean, boolean | undefined, boolean>;
  dunning_level: number | null;
  /** Date of the last dunning notice sent (0006_dunning.sql); the next level is due from it. */
  last_dunning_on: ColumnType<string | null, string | null | undefined, string | null>;
  /** The tax warning a person confirmed at issue in the app (0023), as JSON. */
  tax_confirmation: ColumnType<unknown, string | null | undefined, string | null>;
  /** Who wrote it (0026): the API, or a person in the app (invisible to the API). */
  origin: ColumnType<InvoiceOrigin, InvoiceOrigin | undefined, InvoiceOrigin>;
  /** The note a person wrote on an app draft, printed on the invoice (0026). */
  note: ColumnType<string | null, string | null | undefined, string | null>;
  cancels_invoice_id: string | null;
  cancelled_by_invoice_id: string | null;
  change_seq: number;
  changed_at: Timestamp;
  created_at: Timestamp;
}

export interface InvoiceLinesTable {
  company_id: string;
  invoice_id: string;
  position: number;
  description: string;
  quantity: string;
  unit: string | null;
  unit_price_net: string;
  vat_rate: number;
  net_cents: number;
  product_id: string | null;
  tax_exemption_reason: string | null;
  service_period_start: ColumnType<string | null, string | null | undefined, string | null>;
  service_period_end: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface InvoiceFilesTable {
  company_id: string;
  invoice_id: string;
  kind: 'pdf' | 'xml';
  content: Buffer;
  sha256: string;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  company_id: string;
  key: string;
  request_hash: string;
  state: 'pending' | 'done';
  response_status: number | null;
  response_body: string | null;
  invoice_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The liveness token of the process whose mail holds the answer open (db/liveness.ts). */
  owner: string | null;
}

export type MailAttemptState = 'sending' | 'sent' | 'failed' | 'unconfirmed';

export interface InvoiceMailAttemptsTable {
  company_id: string;
  id: string;
  invoice_id: string;
  message_id: string;
  via: 'smtp' | 'outbox';
  owner: string;
  state: MailAttemptState;
  error_code: string | null;
  error_message: string | null;
  resend: ColumnType<boolean, boolean | undefined, boolean>;
  started_at: Timestamp;
  finished_at: Timestamp | null;
}

export interface InvoicingTables {
  invoices: InvoicesTable;
  invoice_lines: InvoiceLinesTable;
  invoice_files: InvoiceFilesTable;
  idempotency_keys: IdempotencyKeysTable;
  invoice_mail_attempts: InvoiceMailAttemptsTable;
}
