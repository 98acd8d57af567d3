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
    .select([
      'i.id',
      'i.number',
      'i.status',
      'i.customer_id',
      'c.kundennummer',
      'c.name as customer_name',
      'i.total_gross_cents',
      'i.amount_paid_cents',
      'i.overdue',
      sql<boolean>`i.sent_at is not null`.as('sent'),
    ])
    .where('i.company_id', '=', companyId)
    .where('i.type', '=', 'invoice')
    .where('i.status', 'in', ['issued', 'sent', 'partially_paid'])
    .where('i.number', 'is not', null)
    .execute();
}

const NORMALIZED_NUMBER = sql<string>`upper(regexp_replace(i.number, '[^A-Za-z0-9]', '', 'g'))`;

/**
 * The invoices (any state) that debits name by normalised number or reach by id (the
 * invoices a returned credit paid), with what a reversal needs: whether they were mailed,
 * marked overdue before (now, by an earlier payment's note, or a dunning notice), paid in
 * full before (a reversal from `paid`), and the customer credit their over-payments left
 * (credits minus what refunds paid back of it).
 */
export async function loadNamedInvoices(trx: Trx, companyId: string, keys: readonly string[], ids: readonly string[]) {
  if (keys.length === 0 && ids.length === 0) return [];
  return trx
    .selectFrom('invoices as i')
    .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'i.company_id').onRef('c.id', '=', 'i.customer_id'))
    .select([
      'i.id',
      'i.number',
      'i.status',
      'i.type',
      'i.customer_id',
      'c.kundennummer',
      'c.name as customer_name',
      'i.total_gross_cents',
      'i.amount_paid_cents',
      'i.overdue',
      NORMALIZED_NUMBER.as('key'),
      sql<boolean>`i.sent_at is not null`.as('sent'),
      sql<boolean>`i.overdue or i.dunning_level is not null or exists (
        select 1 from payment_allocations a where a.company_id = i.company_id and a.invoice_id = i.id and a.invoice_was_overdue)`.as('was_overdue'),
      sql<boolean>`exists (
        select 1 from payment_reversals r where r.company_id = i.company_id and r.invoice_id = i.id and r.status_before = 'paid')`.as('ever_paid'),
      sql<string>`(coalesce((select sum(cc.amount_cents) from payment_allocations a
          join customer_credits cc on cc.company_id = a.company_id and cc.allocation_id = a.id
          where a.company_id = i.company_id and a.invoice_id = i.id), 0)
        - coalesce((select sum(r.credit_cents) from payment_reversals r where r.company_id = i.company_id and r.invoice_id = i.id), 0))::text`.as(
        'credit_cents',
      ),
    ])
    .where('i.company_id', '=', companyId)
    .where('i.number', 'is not', null)
    .where((eb) => eb.or([eb(NORMALIZED_NUMBER, '=', sql<string>`any(${[...keys]}::text[])`), eb('i.id', '=', sql<string>`any(${[...ids]}::text[])`)]))
    .execute();
}

/** The invoices that earlier credits with these end-to-end references paid, in the order paid. */
export async function findPaidByEndToEnd(trx: Trx, companyId: string, endToEndIds: readonly string[]) {
  if (endToEndIds.length === 0) return [];
  return trx
    .selectFrom('bank_transactions as t')
    .innerJoin('bank_entries as e', (join) => join.onRef('e.company_id', '=', 't.company_id').onRef('e.id', '=', 't.entry_id'))
    .innerJoin('payment_allocations as a', (join) =>
      join.onRef('a.company_id', '=', 't.company_id').onRef('a.entry_id', '=', 't.entry_id').onRef('a.transaction_position', '=', 't.position'),
    )
    .select(['t.end_to_end_id', 'a.invoice_id'])
    .where('t.company_id', '=', companyId)
    .where(sql<boolean>`t.end_to_end_id = any(${[...endToEndIds]}::text[])`)
    .where('e.direction', '=', 'credit')
    .orderBy('e.booking_date')
    .orderBy('a.created_at')
    .orderBy('a.id')
    .execute();
}

/** Of these invoices, the ones paid in full before (a reversal took them back from `paid`): invoice.paid was sent for them. */
export async function findPaidBefore(trx: Trx, companyId: string, invoiceIds: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const part of chunks(invoiceIds, 5000)) {
    const rows = await trx
      .selectFrom('payment_reversals')
      .select('invoice_id')
      .distinct()
      .where('company_id', '=', companyId)
      .where('status_before', '=', 'paid')
      .where(sql<boolean>`invoice_id = any(${part}::text[])`)
      .execute();
    for (const row of rows) found.add(row.invoice_id);
  }
  return found;
}

/** Invoices (of any state) whose normalised number is among `keys`: the reasons for unmatched transfers. */
export async function findInvoicesByNormalizedNumber(trx: Database | Trx, companyId: string, keys: readonly string[]) {
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
  notes: 'jsonb',
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
  invoice_was_overdue: 'boolean',
};
const REVERSAL_COLUMNS: ColumnTypes<'payment_reversals'> = {
  company_id: 'text',
  id: 'text',
  entry_id: 'text',
  transaction_position: 'integer',
  invoice_id: 'text',
  invoice_cents: 'bigint',
  credit_cents: 'bigint',
  booking_date: 'date',
  kind: 'text',
  return_marker: 'text',
  return_reason: 'text',
  status_before: 'text',
  paid_before_cents: 'bigint',
  assigned_by: 'text',
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
export const insertReversals = (trx: Trx, rows: readonly Insertable<DB['payment_reversals']>[]) => bulkInsert(trx, 'payment_reversals', REVERSAL_COLUMNS, rows);

export type InvoicePaymentUpdate = {
  id: string;
  /** What the import read: the update applies only if the row still says so. */
  expectedPaidCents: number;
  expectedStatus: InvoiceStatus;
  paidCents: number;
  /** issued or sent: a reversal took back all it was paid. */
  status: 'paid' | 'partially_paid' | 'issued' | 'sent';
  /** When it became paid; null keeps an earlier paid_at of a paid invoice. */
  paidAt: Date | null;
  /** It was marked overdue before a payment cleared the flag: not paid any more, it is overdue again. */
  wasOverdue: boolean;
  changeSeq: number;
};

/**
 * Sets amount_paid, status, paid_at and the change-feed position of many invoices, in
 * UPDATE … FROM (VALUES …) statements. A paid invoice is no longer overdue; one a reversal
 * opens again has no paid_at and is overdue again if it was before (its event was sent
 * then; the daily task marks the others, design §5). Only rows still as the import read
 * them are changed; returns how many were.
 */
export async function applyInvoicePayments(trx: Trx, companyId: string, updates: readonly InvoicePaymentUpdate[], changedAt: Date): Promise<number> {
  let changed = 0;
  for (const part of chunks(updates, 1000)) {
    const column = <T>(pick: (u: InvoicePaymentUpdate) => T) => part.map(pick);
    const result = await sql<{ id: string }>`
      update invoices as i
      set amount_paid_cents = v.paid_cents,
          status = v.status,
          paid_at = case when v.status = 'paid' then coalesce(v.paid_at, i.paid_at) end,
          overdue = case when v.status = 'paid' then false else i.overdue or v.was_overdue end,
          change_seq = v.change_seq,
          changed_at = ${changedAt}::timestamptz
      from unnest(
        ${column((u) => u.id)}::text[],
        ${column((u) => u.expectedPaidCents)}::bigint[],
        ${column((u) => u.expectedStatus)}::text[],
        ${column((u) => u.paidCents)}::bigint[],
        ${column((u) => u.status)}::text[],
        ${column((u) => u.paidAt)}::timestamptz[],
        ${column((u) => u.wasOverdue)}::boolean[],
        ${column((u) => u.changeSeq)}::bigint[]
      ) as v(id, expected_paid_cents, expected_status, paid_cents, status, paid_at, was_overdue, change_seq)
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
