import type { Database } from '../../db/connection.ts';
import { validationFailed } from '../../shared/errors.ts';
import { invoiceView } from './invoice-view.ts';
import { apiInvoiceViewQuery } from './invoices.repository.ts';

export type ListInvoicesQuery = {
  changed_since?: string;
  status?: string;
  type?: 'invoice' | 'storno';
  customer_source?: string;
  customer_ref?: string;
  contract_source?: string;
  contract_ref?: string;
  limit?: number;
  cursor?: string;
};

// The cursor is the change-feed position of the last invoice on the page. An invoice that
// changes while a caller pages moves to a later position, so it shows up again further
// on: a sync loop over changed_since and the cursor never misses a change.
const encodeCursor = (seq: number) => Buffer.from(`c${seq}`).toString('base64url');

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const seq = /^c(\d{1,15})$/.exec(text)?.[1];
  if (!seq) throw validationFailed([{ loc: ['query', 'cursor'], type: 'format', msg: 'Input is not a cursor of this list' }]);
  return Number(seq);
}

/** GET /invoices: the company's invoices the API sees, in change order, with filters and cursor paging. */
export async function listInvoices(db: Database, companyId: string, query: ListInvoicesQuery) {
  const limit = query.limit ?? 50;
  for (const [source, ref] of [
    ['customer_source', 'customer_ref'],
    ['contract_source', 'contract_ref'],
  ] as const) {
    if ((query[source] === undefined) !== (query[ref] === undefined))
      throw validationFailed([{ loc: ['query', query[source] === undefined ? source : ref], type: 'missing', msg: `${source} and ${ref} go together` }]);
  }
  // Invoices written in the app are not listed (interface §1); their changes leave gaps in
  // the positions a caller sees, which the cursor pages over like any other.
  let q = apiInvoiceViewQuery(db, companyId)
    .orderBy('i.change_seq')
    .limit(limit + 1);
  if (query.changed_since) q = q.where('i.changed_at', '>=', new Date(query.changed_since));
  if (query.status) q = q.where('i.status', '=', query.status as never);
  if (query.type) q = q.where('i.type', '=', query.type);
  if (query.customer_source && query.customer_ref)
    q = q.where('c.external_source', '=', query.customer_source).where('c.external_ref', '=', query.customer_ref);
  if (query.contract_source && query.contract_ref) {
    const { contract_source: source, contract_ref: ref } = query;
    q = q.where('i.contract_id', '=', (eb) =>
      eb.selectFrom('contracts').select('id').where('company_id', '=', companyId).where('external_source', '=', source).where('external_ref', '=', ref),
    );
  }
  if (query.cursor) q = q.where('i.change_seq', '>', decodeCursor(query.cursor));
  const rows = await q.execute();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { data: page.map(invoiceView), next_cursor: rows.length > limit && last ? encodeCursor(last.change_seq) : null };
}
