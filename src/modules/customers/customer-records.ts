import { type Expression, type SqlBool, sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { CustomerRow } from './customers.repository.ts';

// Read-only views of a company's customers for the back-office app and `kontor admin
// customer show` (issue 15): the list with each customer's open and overdue amounts, and one
// customer's account — master data, credits, open items, last invoices, contracts.
//
// Open items are the issued invoices (not stornos, not drafts) that are not paid in full:
// status issued, sent or partially_paid; open = gross − paid. An item is overdue from the
// day after its due date (the company's calendar day decides, as for `invoice.overdue`).
// Credits are the customer_credits rows: money received beyond the open amount of the
// invoices a transfer named (bank import), kept as a credit balance of the debtor; what a
// refund paid back of them (payment_reversals.credit_cents) is listed as a negative row.

export const OPEN_STATUSES = ['issued', 'sent', 'partially_paid'] as const;

/** The customer list's sort keys and their SQL expressions (key paging compares the same expression). */
export const CUSTOMER_SORTS = {
  name: sql`lower(c.name)`,
  number: sql`c.kundennummer`,
} as const;
export type CustomerSort = keyof typeof CUSTOMER_SORTS;

/** A position in a list: the sort value and id of a row. */
export type Cursor = { value: string; id: string };

export type CustomerListQuery = {
  q: string;
  sort: CustomerSort;
  dir: 'asc' | 'desc';
  /** The page after this row, or the page before this row (at most one of them). */
  after: Cursor | null;
  before: Cursor | null;
  limit: number;
};

export type ListedCustomer = {
  id: string;
  kundennummer: number;
  external_source: string;
  external_ref: string;
  name: string;
  email: string | null;
  customer_type: string;
  country_code: string | null;
  sort_value: string;
  /** Cents, as decimal text (sums may be large). */
  open_cents: string;
  overdue_cents: string;
  open_count: number;
};

export type Page<T> = { rows: T[]; hasPrevious: boolean; hasNext: boolean };

/** "%text%" for ILIKE with the wildcards of the text itself escaped. */
export const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * One page of customers, paged by key: the sort value and id of the row the page starts
 * after (or ends before), so every page costs what the first does. Open and overdue
 * amounts come from one aggregated query over the page's customers (index
 * invoices_customer), never one query per row.
 */
export async function listCustomers(db: Database, companyId: string, today: string, query: CustomerListQuery): Promise<Page<ListedCustomer>> {
  const sortExpr = CUSTOMER_SORTS[query.sort];
  // Paging backwards reads the rows before the cursor in reverse order, then turns them round.
  const backwards = query.before !== null;
  const ascending = (query.dir === 'asc') !== backwards;
  let builder = db
    .selectFrom('customers as c')
    .select([
      'c.id',
      'c.kundennummer',
      'c.external_source',
      'c.external_ref',
      'c.name',
      'c.email',
      'c.customer_type',
      'c.country_code',
      sql<string>`(${sortExpr})::text`.as('sort_value'),
    ])
    .where('c.company_id', '=', companyId);
  if (query.q) {
    const like = containsPattern(query.q);
    builder = builder.where((eb) =>
      eb.or([
        eb('c.name', 'ilike', like),
        eb('c.email', 'ilike', like),
        eb('c.external_ref', 'ilike', like),
        ...(/^\d{1,5}$/.test(query.q) ? [eb(sql`c.kundennummer::text`, 'like', `${query.q}%`)] : []),
      ]),
    );
  }
  const cursor = query.after ?? query.before;
  if (cursor) {
    const cmp = sql.raw(ascending ? '>' : '<');
    const value = query.sort === 'number' ? sql`${Number.parseInt(cursor.value, 10) || 0}::int` : sql`${cursor.value}`;
    builder = builder.where(sql<SqlBool>`(${sortExpr}, c.id) ${cmp} (${value}, ${cursor.id})` as Expression<SqlBool>);
  }
  const dir = sql.raw(ascending ? 'asc' : 'desc');
  const found = await builder
    .orderBy(sql`${sortExpr} ${dir}`)
    .orderBy(sql`c.id ${dir}`)
    .limit(query.limit + 1)
    .execute();
  const more = found.length > query.limit;
  const rows = found.slice(0, query.limit);
  if (backwards) rows.reverse();
  const amounts = await openAmounts(
    db,
    companyId,
    rows.map((r) => r.id),
    today,
  );
  return {
    rows: rows.map((row) => {
      const a = amounts.get(row.id);
      return { ...row, open_cents: a?.open ?? '0', overdue_cents: a?.overdue ?? '0', open_count: a?.count ?? 0 };
    }),
    hasPrevious: backwards ? more : query.after !== null,
    hasNext: backwards ? true : more,
  };
}

/** Per customer: the open amount of its open items, the overdue part, and how many. One query. */
export async function openAmounts(db: Database, companyId: string, customerIds: readonly string[], today: string) {
  const result = new Map<string, { open: string; overdue: string; count: number }>();
  if (customerIds.length === 0) return result;
  const rows = await db
    .selectFrom('invoices')
    .select([
      'customer_id',
      sql<string>`sum(total_gross_cents - amount_paid_cents)::text`.as('open'),
      sql<string>`coalesce(sum(total_gross_cents - amount_paid_cents) filter (where due_date < ${today}::date), 0)::text`.as('overdue'),
      sql<number>`count(*)::int`.as('count'),
    ])
    .where('company_id', '=', companyId)
    .where('customer_id', '=', sql<string>`any(${[...customerIds]}::text[])`)
    .where('type', '=', 'invoice')
    .where('status', 'in', [...OPEN_STATUSES])
    .groupBy('customer_id')
    .execute();
  for (const row of rows) result.set(row.customer_id, { open: row.open, overdue: row.overdue, count: row.count });
  return result;
}

export type OpenItem = {
  id: string;
  number: string;
  status: string;
  issue_date: string | null;
  due_date: string | null;
  total_gross_cents: number;
  amount_paid_cents: number;
  open_cents: number;
  /** Days past the due date (0: not overdue). */
  days_overdue: number;
};

export type CustomerCredit = {
  id: string;
  booking_date: string;
  amount_cents: number;
  invoice_id: string;
  invoice_number: string | null;
  payer_name: string | null;
  remittance_text: string | null;
};

export type CustomerInvoice = {
  id: string;
  number: string | null;
  type: string;
  status: string;
  issue_date: string | null;
  due_date: string | null;
  total_gross_cents: number;
  amount_paid_cents: number;
};

export type CustomerContract = {
  id: string;
  number: string;
  name: string;
  status: string;
  billing_interval: string;
  next_billing_date: string | null;
};

export type CustomerAccount = {
  customer: CustomerRow;
  openItems: OpenItem[];
  openCents: bigint;
  overdueCents: bigint;
  credits: CustomerCredit[];
  creditCents: bigint;
  recentInvoices: CustomerInvoice[];
  invoiceCount: number;
  contracts: CustomerContract[];
};

export const CUSTOMER_ID = /^cus_[0-9a-z]{26}$/;

/** Days from `due` to `today` when `today` is later (the first day after the due date is day 1), else 0. */
export function daysOverdue(due: string | null, today: string): number {
  if (!due || due >= today) return 0;
  return Math.round((Date.parse(`${today}T00:00:00Z`) - Date.parse(`${due}T00:00:00Z`)) / 86_400_000);
}

/** A customer's account as of `today` (the company's calendar day); null when the company has no such customer. */
export async function customerAccount(db: Database, companyId: string, customerId: string, today: string, recent = 10): Promise<CustomerAccount | null> {
  if (!CUSTOMER_ID.test(customerId)) return null;
  const customer = await db.selectFrom('customers').selectAll().where('company_id', '=', companyId).where('id', '=', customerId).executeTakeFirst();
  if (!customer) return null;
  const [open, credits, invoices, count, contracts] = await Promise.all([
    db
      .selectFrom('invoices')
      .select(['id', 'number', 'status', 'issue_date', 'due_date', 'total_gross_cents', 'amount_paid_cents'])
      .where('company_id', '=', companyId)
      .where('customer_id', '=', customerId)
      .where('type', '=', 'invoice')
      .where('status', 'in', [...OPEN_STATUSES])
      .orderBy('due_date')
      .orderBy('number')
      .execute(),
    db
      .selectFrom('customer_credits as cc')
      .innerJoin('payment_allocations as a', (join) => join.onRef('a.company_id', '=', 'cc.company_id').onRef('a.id', '=', 'cc.allocation_id'))
      .innerJoin('invoices as i', (join) => join.onRef('i.company_id', '=', 'a.company_id').onRef('i.id', '=', 'a.invoice_id'))
      .innerJoin('bank_transactions as t', (join) =>
        join.onRef('t.company_id', '=', 'cc.company_id').onRef('t.entry_id', '=', 'cc.entry_id').onRef('t.position', '=', 'cc.transaction_position'),
      )
      .select(['cc.id', 'cc.booking_date', 'cc.amount_cents', 'i.id as invoice_id', 'i.number as invoice_number', 't.payer_name', 't.remittance_text'])
      .where('cc.company_id', '=', companyId)
      .where('cc.customer_id', '=', customerId)
      // Credit paid back to the customer by a refund naming the over-paid invoice (issue 24): a negative row.
      .unionAll(
        db
          .selectFrom('payment_reversals as r')
          .innerJoin('invoices as i', (join) => join.onRef('i.company_id', '=', 'r.company_id').onRef('i.id', '=', 'r.invoice_id'))
          .innerJoin('bank_transactions as t', (join) =>
            join.onRef('t.company_id', '=', 'r.company_id').onRef('t.entry_id', '=', 'r.entry_id').onRef('t.position', '=', 'r.transaction_position'),
          )
          .select([
            'r.id',
            'r.booking_date',
            sql<number>`-r.credit_cents`.as('amount_cents'),
            'i.id as invoice_id',
            'i.number as invoice_number',
            't.payer_name',
            't.remittance_text',
          ])
          .where('r.company_id', '=', companyId)
          .where('i.customer_id', '=', customerId)
          .where('r.credit_cents', '>', 0),
      )
      .orderBy('booking_date', 'desc')
      .orderBy('id', 'desc')
      .execute(),
    db
      .selectFrom('invoices')
      .select(['id', 'number', 'type', 'status', 'issue_date', 'due_date', 'total_gross_cents', 'amount_paid_cents'])
      .where('company_id', '=', companyId)
      .where('customer_id', '=', customerId)
      .orderBy(sql`coalesce(issue_date, '9999-12-31'::date)`, 'desc')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(recent)
      .execute(),
    db
      .selectFrom('invoices')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('company_id', '=', companyId)
      .where('customer_id', '=', customerId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('contracts')
      .select(['id', 'number', 'name', 'status', 'billing_interval', 'next_billing_date'])
      .where('company_id', '=', companyId)
      .where('customer_id', '=', customerId)
      .orderBy('number')
      .limit(200)
      .execute(),
  ]);
  const openItems: OpenItem[] = open.map((row) => ({
    ...row,
    number: row.number as string,
    open_cents: row.total_gross_cents - row.amount_paid_cents,
    days_overdue: daysOverdue(row.due_date, today),
  }));
  return {
    customer,
    openItems,
    openCents: openItems.reduce((sum, item) => sum + BigInt(item.open_cents), 0n),
    overdueCents: openItems.reduce((sum, item) => sum + (item.days_overdue > 0 ? BigInt(item.open_cents) : 0n), 0n),
    credits,
    creditCents: credits.reduce((sum, credit) => sum + BigInt(credit.amount_cents), 0n),
    recentInvoices: invoices,
    invoiceCount: count.n,
    contracts,
  };
}
