import type { Insertable, Selectable } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { CommissionAgreementsTable } from '../../db/schema-commissions.ts';
import type { Trx } from '../../db/transaction.ts';

// Plain Kysely functions for revenue-share agreements and the products they are limited to.

export type AgreementRow = Selectable<CommissionAgreementsTable>;

/** What a request may change on an existing agreement (design §6); the rest are its frozen terms. */
export type AgreementChangeable = Pick<AgreementRow, 'name' | 'end_date' | 'contract_reference'>;

export function findAgreementByRef(db: Database | Trx, companyId: string, source: string, externalRef: string, forUpdate = false) {
  let query = db
    .selectFrom('commission_agreements')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('external_source', '=', source)
    .where('external_ref', '=', externalRef);
  if (forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The ids of the products an agreement is limited to, sorted (none: every product). */
export async function findAgreementProductIds(db: Database | Trx, companyId: string, agreementId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('commission_agreement_products')
    .select('product_id')
    .where('company_id', '=', companyId)
    .where('agreement_id', '=', agreementId)
    .orderBy('product_id')
    .execute();
  return rows.map((row) => row.product_id);
}

/** The company's products with these article numbers: number → id. */
export async function findProductIdsByNumber(db: Database | Trx, companyId: string, productNumbers: string[]): Promise<Map<string, string>> {
  if (productNumbers.length === 0) return new Map();
  const rows = await db
    .selectFrom('products')
    .select(['id', 'product_number'])
    .where('company_id', '=', companyId)
    .where('product_number', 'in', productNumbers)
    .execute();
  return new Map(rows.map((row) => [row.product_number, row.id]));
}

/** Inserts the agreement unless its reference exists (a concurrent create): then undefined. */
export function insertAgreement(trx: Trx, row: Insertable<CommissionAgreementsTable>): Promise<AgreementRow | undefined> {
  return trx
    .insertInto('commission_agreements')
    .values(row)
    .onConflict((oc) => oc.columns(['company_id', 'external_source', 'external_ref']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function insertAgreementProducts(trx: Trx, companyId: string, agreementId: string, productIds: string[]): Promise<void> {
  if (productIds.length === 0) return;
  await trx
    .insertInto('commission_agreement_products')
    .values(productIds.map((productId) => ({ company_id: companyId, agreement_id: agreementId, product_id: productId })))
    .execute();
}

export function updateAgreement(trx: Trx, companyId: string, id: string, fields: AgreementChangeable, now: Date): Promise<AgreementRow> {
  return trx
    .updateTable('commission_agreements')
    .set({ ...fields, updated_at: now })
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
