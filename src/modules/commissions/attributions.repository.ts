import type { Insertable, Selectable } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { CommissionAttributionsTable } from '../../db/schema-commissions.ts';
import type { Trx } from '../../db/transaction.ts';

// Plain Kysely functions for attributions of customers to agreements, and the customer rows
// their writes lock.

export type AttributionRow = Selectable<CommissionAttributionsTable>;

/** What a PUT may change on an existing attribution; its status changes only by a person (decide-attribution.ts). */
export type AttributionChangeable = Pick<AttributionRow, 'start_date' | 'end_date' | 'conflicts_with_id'>;

/** An attribution with the names its view shows (agreement, partner, customer). */
export type NamedAttribution = { row: AttributionRow; agreementName: string | null; partnerName: string | null; customerName: string | null };

export function findAttributionByRef(db: Database | Trx, companyId: string, source: string, externalRef: string) {
  return db
    .selectFrom('commission_attributions')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('external_source', '=', source)
    .where('external_ref', '=', externalRef)
    .executeTakeFirst();
}

/** By id alone (ids are unique across companies), for the person-side steps; locked with forUpdate. */
export function findAttributionById(db: Database | Trx, id: string, forUpdate = false) {
  let query = db.selectFrom('commission_attributions').selectAll().where('id', '=', id);
  if (forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The attribution with its names, or undefined. */
export async function findNamedAttribution(db: Database | Trx, row: AttributionRow | undefined): Promise<NamedAttribution | undefined> {
  if (!row) return undefined;
  const names = await db
    .selectFrom('commission_agreements as a')
    .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 'a.company_id').onRef('p.id', '=', 'a.partner_id'))
    .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'a.company_id'))
    .select(['a.name as agreement_name', 'p.name as partner_name', 'c.name as customer_name'])
    .where('a.company_id', '=', row.company_id)
    .where('a.id', '=', row.agreement_id)
    .where('c.id', '=', row.customer_id)
    .executeTakeFirstOrThrow();
  return { row, agreementName: names.agreement_name, partnerName: names.partner_name, customerName: names.customer_name };
}

/**
 * Locks the customer's row for the rest of the transaction: the writes of one customer's
 * attributions run one after the other, so two partners cannot both take it (the conflict
 * check sees what the other committed). `for no key update`: it still lets other
 * transactions insert rows that refer to the customer (an invoice's foreign key takes a
 * key-share lock), so invoices of the customer are not held up and cannot deadlock with it.
 */
export async function lockCustomer(trx: Trx, companyId: string, customerId: string): Promise<void> {
  await trx.selectFrom('customers').select('id').where('company_id', '=', companyId).where('id', '=', customerId).forNoKeyUpdate().executeTakeFirstOrThrow();
}

/**
 * Other partners' attributions of the customer that hold it (active) or ask for it
 * (proposed) on some day of [start, end] (null end: open-ended); active ones first, then
 * the oldest.
 */
export function findOverlappingAttributions(
  trx: Trx,
  companyId: string,
  query: { customerId: string; partnerId: string; excludeId: string | null; start: string; end: string | null },
) {
  let select = trx
    .selectFrom('commission_attributions')
    .select(['id', 'status'])
    .where('company_id', '=', companyId)
    .where('customer_id', '=', query.customerId)
    .where('partner_id', '<>', query.partnerId)
    .where('status', 'in', ['active', 'proposed'])
    .where((eb) => eb.or([eb('end_date', 'is', null), eb('end_date', '>=', query.start)]));
  if (query.end !== null) select = select.where('start_date', '<=', query.end);
  if (query.excludeId !== null) select = select.where('id', '<>', query.excludeId);
  return select
    .orderBy((eb) => eb.case().when('status', '=', 'active').then(0).else(1).end())
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * Whether the customer has an attribution under the agreement that is active or proposed
 * on `day` (start on or before it, end open or on or after it).
 */
export async function hasAttributionOn(trx: Trx, companyId: string, query: { customerId: string; agreementId: string; day: string }): Promise<boolean> {
  const row = await trx
    .selectFrom('commission_attributions')
    .select('id')
    .where('company_id', '=', companyId)
    .where('customer_id', '=', query.customerId)
    .where('agreement_id', '=', query.agreementId)
    .where('status', 'in', ['active', 'proposed'])
    .where('start_date', '<=', query.day)
    .where((eb) => eb.or([eb('end_date', 'is', null), eb('end_date', '>=', query.day)]))
    .executeTakeFirst();
  return row !== undefined;
}

/** Inserts the attribution unless its reference exists (a concurrent create): then undefined. */
export function insertAttribution(trx: Trx, row: Insertable<CommissionAttributionsTable>): Promise<AttributionRow | undefined> {
  return trx
    .insertInto('commission_attributions')
    .values(row)
    .onConflict((oc) => oc.columns(['company_id', 'external_source', 'external_ref']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** What a person's decision sets (decide-attribution.ts). */
export type AttributionDecision = Pick<AttributionRow, 'status' | 'confirmed_at' | 'decided_by' | 'decided_at'>;

export function updateAttribution(
  trx: Trx,
  companyId: string,
  id: string,
  fields: AttributionChangeable | AttributionDecision,
  now: Date,
): Promise<AttributionRow> {
  return trx
    .updateTable('commission_attributions')
    .set({ ...fields, updated_at: now })
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
