import { type Selectable, sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { CommissionEntriesTable, RevenueEventLinesTable, RevenueEventsTable } from '../../db/schema-commissions.ts';
import type { Trx } from '../../db/transaction.ts';

// Plain queries of revenue events, by (source, ref) pairs for a batch at a time.

export type RevenueEventRow = Selectable<RevenueEventsTable>;
export type RevenueEventLineRow = Selectable<RevenueEventLinesTable>;
export type EntryRowRead = Selectable<CommissionEntriesTable>;

export type Pair = { source: string; ref: string };
export const pairKey = (source: string, ref: string) => `${source}\n${ref}`;

function unnestPairs(pairs: readonly Pair[]) {
  return sql`select * from unnest(${pairs.map((p) => p.source)}::text[], ${pairs.map((p) => p.ref)}::text[]) as k(source, ref)`;
}

/** API revenue events by (source, external_ref). */
export async function findEventsByRef(db: Database | Trx, companyId: string, pairs: readonly Pair[]): Promise<Map<string, RevenueEventRow>> {
  if (pairs.length === 0) return new Map();
  const rows = await db
    .selectFrom('revenue_events')
    .selectAll()
    .where('company_id', '=', companyId)
    .where(sql<boolean>`(external_source, external_ref) in (${unnestPairs(pairs)})`)
    .execute();
  return new Map(rows.map((row) => [pairKey(row.external_source as string, row.external_ref as string), row]));
}

/** Customers by (source, external_ref): key → {id, external_source, external_ref}. */
export async function findCustomersByRef(trx: Trx, companyId: string, pairs: readonly Pair[]) {
  if (pairs.length === 0) return new Map<string, { id: string; name: string }>();
  const rows = await trx
    .selectFrom('customers')
    .select(['id', 'name', 'external_source', 'external_ref'])
    .where('company_id', '=', companyId)
    .where(sql<boolean>`(external_source, external_ref) in (${unnestPairs(pairs)})`)
    .execute();
  return new Map(rows.map((row) => [pairKey(row.external_source, row.external_ref), { id: row.id, name: row.name }]));
}

/** Products by (source, external_ref) and by article number. */
export async function findProducts(trx: Trx, companyId: string, refs: readonly Pair[], numbers: readonly string[]) {
  const byRef = new Map<string, string>();
  const byNumber = new Map<string, string>();
  if (refs.length > 0) {
    const rows = await trx
      .selectFrom('products')
      .select(['id', 'external_source', 'external_ref'])
      .where('company_id', '=', companyId)
      .where(sql<boolean>`(external_source, external_ref) in (${unnestPairs(refs)})`)
      .execute();
    for (const row of rows) byRef.set(pairKey(row.external_source, row.external_ref), row.id);
  }
  if (numbers.length > 0) {
    const rows = await trx
      .selectFrom('products')
      .select(['id', 'product_number'])
      .where('company_id', '=', companyId)
      .where(sql<boolean>`product_number = any(${numbers}::text[])`)
      .execute();
    for (const row of rows) byNumber.set(row.product_number, row.id);
  }
  return { byRef, byNumber };
}

/** Sum of the refunds (negative cents) already stored for each event. */
export async function refundedCents(trx: Trx, companyId: string, eventIds: readonly string[]): Promise<Map<string, bigint>> {
  if (eventIds.length === 0) return new Map();
  const rows = await trx
    .selectFrom('revenue_events')
    .select(['reverses_id', sql<string>`sum(net_cents)::text`.as('total')])
    .where('company_id', '=', companyId)
    .where(sql<boolean>`reverses_id = any(${eventIds}::text[])`)
    .groupBy('reverses_id')
    .execute();
  return new Map(rows.map((row) => [row.reverses_id as string, BigInt(row.total)]));
}

export async function findLines(db: Database | Trx, companyId: string, eventIds: readonly string[]): Promise<Map<string, RevenueEventLineRow[]>> {
  const out = new Map<string, RevenueEventLineRow[]>();
  if (eventIds.length === 0) return out;
  const rows = await db
    .selectFrom('revenue_event_lines')
    .selectAll()
    .where('company_id', '=', companyId)
    .where(sql<boolean>`event_id = any(${eventIds}::text[])`)
    .orderBy('event_id')
    .orderBy('position')
    .execute();
  for (const row of rows) out.set(row.event_id, [...(out.get(row.event_id) ?? []), row]);
  return out;
}

/** The entries of these revenue events, in writing order. */
export async function findEntriesOfEvents(db: Database | Trx, companyId: string, eventIds: readonly string[]): Promise<Map<string, EntryRowRead[]>> {
  const out = new Map<string, EntryRowRead[]>();
  if (eventIds.length === 0) return out;
  const rows = await db
    .selectFrom('commission_entries')
    .selectAll()
    .where('company_id', '=', companyId)
    .where(sql<boolean>`revenue_event_id = any(${eventIds}::text[])`)
    .orderBy('seq')
    .execute();
  for (const row of rows) out.set(row.revenue_event_id, [...(out.get(row.revenue_event_id) ?? []), row]);
  return out;
}

/** Customers' references by id (for views). */
export async function customerRefs(db: Database | Trx, companyId: string, ids: readonly string[]) {
  if (ids.length === 0) return new Map<string, { source: string; external_ref: string }>();
  const rows = await db
    .selectFrom('customers')
    .select(['id', 'external_source', 'external_ref'])
    .where('company_id', '=', companyId)
    .where(sql<boolean>`id = any(${ids}::text[])`)
    .execute();
  return new Map(rows.map((row) => [row.id, { source: row.external_source, external_ref: row.external_ref }]));
}
