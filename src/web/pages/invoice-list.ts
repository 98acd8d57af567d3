import { type Expression, type SqlBool, sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { isCalendarDate } from '../../shared/dates.ts';

// The invoice list of the app: search by number or customer name, status, issue period,
// sorted by one column either way, paged by key (the last row's sort value and id), so the
// thousandth page costs what the first does.

export const SORTS = {
  issue_date: sql`coalesce(i.issue_date, '9999-12-31'::date)`,
  due_date: sql`coalesce(i.due_date, '9999-12-31'::date)`,
  number: sql`coalesce(i.number, '')`,
  gross: sql`i.total_gross_cents`,
  customer: sql`lower(c.name)`,
} as const;
export type SortKey = keyof typeof SORTS;
export const STATUS_FILTERS = ['open', 'overdue', 'draft', 'issued', 'sent', 'partially_paid', 'paid', 'cancelled'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

export type ListQuery = {
  q: string;
  status: StatusFilter | null;
  from: string | null;
  to: string | null;
  sort: SortKey;
  dir: 'asc' | 'desc';
  after: { value: string; id: string } | null;
  limit: number;
};

export type ListedInvoice = {
  id: string;
  number: string | null;
  status: string;
  type: string;
  overdue: boolean;
  issue_date: string | null;
  due_date: string | null;
  total_net_cents: number;
  total_tax_cents: number;
  total_gross_cents: number;
  amount_paid_cents: number;
  customer_name: string;
  /** 'app': written in the app, shown with a badge (the API does not see it). */
  origin: string;
  sort_value: string;
};

const INVOICE_ID = /^inv_[0-9a-z]{26}$/;

/** One value of the query string: a repeated parameter (an array) or a missing one is none. */
const one = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
/** A typed date that exists (no 2026-02-30, which PostgreSQL would refuse), else none. */
const calendarDay = (value: string | undefined): string | null => (value && isCalendarDate(value) && value >= '0001-01-01' ? value : null);

/** A paging key as the list wrote it for `sort`; anything else (edited, from another sort) is none. */
function decodeAfter(raw: string | undefined, sort: SortKey): ListQuery['after'] {
  if (!raw || raw.length > 2000) return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(decoded) || typeof decoded[0] !== 'string' || typeof decoded[1] !== 'string' || !INVOICE_ID.test(decoded[1])) return null;
  const value = decoded[0];
  const fits =
    sort === 'gross'
      ? /^-?\d{1,15}$/.test(value)
      : sort === 'issue_date' || sort === 'due_date'
        ? calendarDay(value) !== null
        : value.length <= 1000 && !value.includes('\u0000');
  return fits ? { value, id: decoded[1] } : null;
}

/**
 * Reads the page's query string; anything unknown, impossible or malformed (a hand-edited
 * address, an old bookmark) falls back to the default, so the page shows instead of an error.
 */
export function parseListQuery(raw: Record<string, unknown>): ListQuery {
  const rawSort = one(raw.sort);
  const sort = (Object.keys(SORTS) as SortKey[]).includes(rawSort as SortKey) ? (rawSort as SortKey) : 'issue_date';
  const status = one(raw.status);
  const dir = one(raw.dir);
  return {
    q: (one(raw.q) ?? '')
      .replace(/\p{Cc}/gu, ' ')
      .trim()
      .slice(0, 100),
    status: STATUS_FILTERS.includes(status as StatusFilter) ? (status as StatusFilter) : null,
    from: calendarDay(one(raw.from)),
    to: calendarDay(one(raw.to)),
    sort,
    dir: dir === 'asc' ? 'asc' : dir === 'desc' ? 'desc' : sort === 'issue_date' || sort === 'gross' ? 'desc' : 'asc',
    after: decodeAfter(one(raw.after), sort),
    limit: 50,
  };
}

export const encodeAfter = (row: ListedInvoice) => Buffer.from(JSON.stringify([row.sort_value, row.id])).toString('base64url');

/** One page of invoices and whether more follow. */
export async function listInvoices(db: Database, companyId: string, query: ListQuery): Promise<{ rows: ListedInvoice[]; more: boolean }> {
  const sortExpr = SORTS[query.sort];
  let builder = db
    .selectFrom('invoices as i')
    .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'i.company_id').onRef('c.id', '=', 'i.customer_id'))
    .select([
      'i.id',
      'i.number',
      'i.status',
      'i.type',
      'i.overdue',
      'i.issue_date',
      'i.due_date',
      'i.total_net_cents',
      'i.total_tax_cents',
      'i.total_gross_cents',
      'i.amount_paid_cents',
      'c.name as customer_name',
      'i.origin',
      sql<string>`(${sortExpr})::text`.as('sort_value'),
    ])
    .where('i.company_id', '=', companyId);
  if (query.q) {
    const like = `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    // The customers first (trigram index on their names), then the invoices by number
    // (trigram index) or by those customers (index on customer_id): a bitmap OR of indexes
    // instead of reading every invoice with its customer.
    const customers = await db.selectFrom('customers').select('id').where('company_id', '=', companyId).where('name', 'ilike', like).limit(10_001).execute();
    const ids = customers.map((c) => c.id);
    builder = builder.where((eb) => {
      if (ids.length === 0) return eb('i.number', 'ilike', like);
      // A term most customers match (say "GmbH"): filter on the joined name instead of a huge list.
      if (ids.length > 10_000) return eb.or([eb('i.number', 'ilike', like), eb('c.name', 'ilike', like)]);
      return eb.or([eb('i.number', 'ilike', like), eb('i.customer_id', '=', sql<string>`any(${ids}::text[])`)]);
    });
  }
  if (query.status === 'open') builder = builder.where('i.status', 'in', ['issued', 'sent', 'partially_paid']).where('i.type', '=', 'invoice');
  else if (query.status === 'overdue') builder = builder.where('i.status', 'in', ['issued', 'sent', 'partially_paid']).where('i.overdue', '=', true);
  else if (query.status) builder = builder.where('i.status', '=', query.status);
  if (query.from) builder = builder.where('i.issue_date', '>=', query.from);
  if (query.to) builder = builder.where('i.issue_date', '<=', query.to);
  if (query.after) {
    const cmp = query.dir === 'asc' ? sql.raw('>') : sql.raw('<');
    const value =
      query.sort === 'gross'
        ? sql`${query.after.value}::bigint`
        : query.sort === 'issue_date' || query.sort === 'due_date'
          ? sql`${query.after.value}::date`
          : sql`${query.after.value}`;
    builder = builder.where(sql<SqlBool>`(${sortExpr}, i.id) ${cmp} (${value}, ${query.after.id})` as Expression<SqlBool>);
  }
  const dir = sql.raw(query.dir);
  const rows = await builder
    .orderBy(sql`${sortExpr} ${dir}`)
    .orderBy(sql`i.id ${dir}`)
    .limit(query.limit + 1)
    .execute();
  return { rows: rows.slice(0, query.limit) as ListedInvoice[], more: rows.length > query.limit };
}

/** What is still to be paid on an invoice of the list: issued and not fully paid; else nothing. */
export function openCents(row: Pick<ListedInvoice, 'status' | 'type' | 'total_gross_cents' | 'amount_paid_cents'>): number {
  const open = row.type === 'invoice' && (row.status === 'issued' || row.status === 'sent' || row.status === 'partially_paid');
  return open ? row.total_gross_cents - row.amount_paid_cents : 0;
}

/**
 * Every invoice the query finds, page by page by key (`pageSize` rows held at a time), so an
 * export of 100,000 invoices never sits in memory at once.
 */
export async function* allInvoices(db: Database, companyId: string, query: ListQuery, pageSize = 1000): AsyncGenerator<ListedInvoice[]> {
  let after: ListQuery['after'] = null;
  for (;;) {
    const { rows, more } = await listInvoices(db, companyId, { ...query, after, limit: pageSize });
    if (rows.length > 0) yield rows;
    const last = rows.at(-1);
    if (!more || !last) return;
    after = { value: last.sort_value, id: last.id };
  }
}
