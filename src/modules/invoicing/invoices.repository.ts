import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { Trx } from '../../db/transaction.ts';
import { chunks } from '../../shared/arrays.ts';

// Invoices with what their view needs: the customer's reference and the references of
// the storno pair.

export function invoiceViewQuery(db: Database | Trx, companyId: string) {
  return db
    .selectFrom('invoices as i')
    .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'i.company_id').onRef('c.id', '=', 'i.customer_id'))
    .leftJoin('invoices as ci', (join) => join.onRef('ci.company_id', '=', 'i.company_id').onRef('ci.id', '=', 'i.cancels_invoice_id'))
    .leftJoin('invoices as cb', (join) => join.onRef('cb.company_id', '=', 'i.company_id').onRef('cb.id', '=', 'i.cancelled_by_invoice_id'))
    .where('i.company_id', '=', companyId)
    .select([
      'i.id',
      'i.number',
      'i.status',
      'i.type',
      'i.external_source',
      'i.external_ref',
      'c.external_ref as customer_external_ref',
      'i.contract_external_ref',
      'i.total_net_cents',
      'i.total_tax_cents',
      'i.total_gross_cents',
      'i.amount_paid_cents',
      'i.currency',
      'i.issue_date',
      'i.due_date',
      'i.service_period_start',
      'i.service_period_end',
      'i.sent_at',
      'i.paid_at',
      'i.overdue',
      'i.dunning_level',
      'ci.id as cancels_id',
      'ci.number as cancels_number',
      'ci.external_ref as cancels_external_ref',
      'cb.id as cancelled_by_id',
      'cb.number as cancelled_by_number',
      'cb.external_ref as cancelled_by_external_ref',
      'i.change_seq',
    ]);
}

export type InvoiceViewRow = Awaited<ReturnType<ReturnType<typeof invoiceViewQuery>['executeTakeFirstOrThrow']>>;

export function findInvoiceViewRow(db: Database | Trx, companyId: string, id: string) {
  return invoiceViewQuery(db, companyId).where('i.id', '=', id).executeTakeFirst();
}

/** The invoices the API sees: not those written in the app (interface §1, migration 0026). */
export function apiInvoiceViewQuery(db: Database | Trx, companyId: string) {
  return invoiceViewQuery(db, companyId).where('i.origin', '=', 'api');
}

/** An invoice as the API may show it; undefined for an unknown one and for one written in the app alike. */
export function findApiInvoiceViewRow(db: Database | Trx, companyId: string, id: string) {
  return apiInvoiceViewQuery(db, companyId).where('i.id', '=', id).executeTakeFirst();
}

/** Whether the API may see (and act on) this invoice: it exists in the company and was not written in the app. */
export async function visibleToApi(db: Database | Trx, companyId: string, id: string): Promise<boolean> {
  const row = await db.selectFrom('invoices').select('origin').where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
  return row?.origin === 'api';
}

export function findApiInvoiceViewRowByRef(db: Database | Trx, companyId: string, source: string, externalRef: string) {
  return apiInvoiceViewQuery(db, companyId).where('i.external_source', '=', source).where('i.external_ref', '=', externalRef).executeTakeFirst();
}

/** The view rows of these invoices (any order; ids not found are left out). */
export async function findInvoiceViewRows(db: Database | Trx, companyId: string, ids: readonly string[]) {
  const rows = [];
  for (const part of chunks(ids, 5000)) rows.push(...(await invoiceViewQuery(db, companyId).where(sql<boolean>`i.id = any(${part}::text[])`).execute()));
  return rows;
}
