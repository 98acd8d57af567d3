import { type Insertable, sql } from 'kysely';
import { bulkInsert, type ColumnTypes } from '../../db/bulk-insert.ts';
import type { Database } from '../../db/connection.ts';
import type { DB } from '../../db/schema.ts';
import type { InvoiceStatus } from '../../db/schema-invoicing.ts';
import type { Trx } from '../../db/transaction.ts';
import { chunks } from '../../shared/arrays.ts';

// Plain Kysely functions for the bank import. Writes go in multi-row statements
// (db/bulk-insert.ts): an import of 10,000 entries is a dozen statements, not tens of thousands.

export function findStatementByHash(db: Database | Trx, companyId: string, sha256: string) {
  return db
    .selectFrom('bank_statements')
    .select(['id', 'imported_at', 'file_name', 'format'])
    .where('company_id', '=', companyId)
    .where('file_sha256', '=', sha256)
    .executeTakeFirst();
}

/** Every open invoice of the company (issued, sent, partially paid; not Storno), in one query. */
export function loadOpenInvoices(trx: Trx, companyId: string) {
  return trx
    .selectFrom('invoices as i')
    .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'i.company_id').onRef('c.id', '=', 'i.customer_id'))
    .select(['i.id', 'i.number', 'i.status', 'i.customer_id', 'c.kundennummer', 'c.name as customer_name', 'i.total_gross_cents', 'i.amount_paid_cents'])
    .where('i.company_id', '=', companyId)
    .where('i.type', '=', 'invoice')
    .where('i.status', 'in', ['issued', 'sent', 'partially_paid'])
    .where('i.number', 'is not', null)
    .execute();
}

/** Invoices (of any state) whose normalised number is among `keys`: the reasons for unmatched transfers. */
export async function findInvoicesByNormalizedNumber(trx: Trx, companyId: string, keys: readonly string[]) {
  const rows: { number: string; status: InvoiceStatus; type: 'invoice' | 'storno'; key: string }[] = [];
  for (const part of chunks(keys, 5000)) {
    const found = await trx
      .selectFrom('invoices')
      .select(['number', 'status', 'type', sql<string>`upper(regexp_replace(number, '[^A-Za-z0-9]', '', 'g'))`.as('key')])
      .where('company_id', '=', companyId)
      .where('number', 'is not', null)
      .where(sql<boolean>`upper(regexp_replace(number, '[^A-Za-z0-9]', '', 'g')) = any(${part}::text[])`)
      .execute();
    for (const row of found) rows.push({ ...row, number: row.number! });
  }
  return rows;
}

const STATEMENT_COLUMNS: ColumnTypes<'bank_statements'> = {
  company_id: 'text',
  id: 'text',
  file_sha256: 'text',
  file_name: 'text',
  format: 'text',
  account_iban: 'text',
  statement_ref: 'text',
  entry_count: 'integer',
  duplicate_count: 'integer',
  matched_count: 'integer',
  partially_matched_count: 'integer',
  unmatched_count: 'integer',
  ignored_count: 'integer',
  imported_at: 'timestamptz',
};
const ENTRY_COLUMNS: ColumnTypes<'bank_entries'> = {
  company_id: 'text',
  id: 'text',
  statement_id: 'text',
  entry_key: 'text',
  position: 'integer',
  account: 'text',
  booking_date: 'date',
  value_date: 'date',
  direction: 'text',
  reversal: 'boolean',
  bank_status: 'text',
  amount: 'numeric',
  currency: 'text',
  bank_reference: 'text',
  booking_text: 'text',
  status: 'text',
  note: 'text',
};
const TRANSACTION_COLUMNS: ColumnTypes<'bank_transactions'> = {
  company_id: 'text',
  entry_id: 'text',
  position: 'integer',
  amount: 'numeric',
  currency: 'text',
  remittance_text: 'text',
  end_to_end_id: 'text',
  creditor_reference: 'text',
  payer_name: 'text',
  payer_iban: 'text',
  status: 'text',
  note: 'text',
  unassigned_cents: 'bigint',
};
const ALLOCATION_COLUMNS: ColumnTypes<'payment_allocations'> = {
  company_id: 'text',
  id: 'text',
  entry_id: 'text',
  transaction_position: 'integer',
  invoice_id: 'text',
  amount_cents: 'bigint',
  booking_date: 'date',
  created_at: 'timestamptz',
};
const CREDIT_COLUMNS: ColumnTypes<'customer_credits'> = {
  company_id: 'text',
  id: 'text',
  customer_id: 'text',
  amount_cents: 'bigint',
  booking_date: 'date',
  entry_id: 'text',
  transaction_position: 'integer',
  allocation_id: 'text',
  created_at: 'timestamptz',
};

export const insertStatement = (trx: Trx, row: Insertable<DB['bank_statements']>) => bulkInsert(trx, 'bank_statements', STATEMENT_COLUMNS, [row]);
export const insertEntries = (trx: Trx, rows: readonly Insertable<DB['bank_entries']>[]) => bulkInsert(trx, 'bank_entries', ENTRY_COLUMNS, rows);
export const insertTransactions = (trx: Trx, rows: readonly Insertable<DB['bank_transactions']>[]) =>
  bulkInsert(trx, 'bank_transactions', TRANSACTION_COLUMNS, rows);
export const insertAllocations = (trx: Trx, rows: readonly Insertable<DB['payment_allocations']>[]) =>
  bulkInsert(trx, 'payment_allocations', ALLOCATION_COLUMNS, rows);
export const insertCredits = (trx: Trx, rows: readonly Insertable<DB['customer_credits']>[]) => bulkInsert(trx, 'customer_credits', CREDIT_COLUMNS, rows);

export type InvoicePaymentUpdate = {
  id: string;
  /** What the import read: the update applies only if the row still says so. */
  expectedPaidCents: number;
  expectedStatus: InvoiceStatus;
  paidCents: number;
  status: 'paid' | 'partially_paid';
  paidAt: Date | null;
  changeSeq: number;
};

/**
 * Sets amount_paid, status, paid_at and the change-feed position of many invoices, in
 * UPDATE … FROM (VALUES …) statements. A paid invoice is no longer overdue. Only rows still
 * as the import read them are changed; returns how many were.
 */
export async function applyInvoicePayments(trx: Trx, companyId: string, updates: readonly InvoicePaymentUpdate[], changedAt: Date): Promise<number> {
  let changed = 0;
  for (const part of chunks(updates, 1000)) {
    const column = <T>(pick: (u: InvoicePaymentUpdate) => T) => part.map(pick);
    const result = await sql<{ id: string }>`
      update invoices as i
      set amount_paid_cents = v.paid_cents,
          status = v.status,
          paid_at = coalesce(v.paid_at, i.paid_at),
          overdue = case when v.status = 'paid' then false else i.overdue end,
          change_seq = v.change_seq,
          changed_at = ${changedAt}::timestamptz
      from unnest(
        ${column((u) => u.id)}::text[],
        ${column((u) => u.expectedPaidCents)}::bigint[],
        ${column((u) => u.expectedStatus)}::text[],
        ${column((u) => u.paidCents)}::bigint[],
        ${column((u) => u.status)}::text[],
        ${column((u) => u.paidAt)}::timestamptz[],
        ${column((u) => u.changeSeq)}::bigint[]
      ) as v(id, expected_paid_cents, expected_status, paid_cents, status, paid_at, change_seq)
      where i.company_id = ${companyId}
        and i.id = v.id
        and i.amount_paid_cents = v.expected_paid_cents
        and i.status = v.expected_status
      returning i.id`.execute(trx);
    changed += result.rows.length;
  }
  return changed;
}

/** The invoices as the API shows them (view rows), for the events. */
