import type { Selectable } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { ProductsTable } from '../../db/schema.ts';
import type { Trx } from '../../db/transaction.ts';

export type ProductRow = Selectable<ProductsTable>;

export function findProductByRef(db: Database | Trx, companyId: string, source: string, externalRef: string, forUpdate = false) {
  let query = db
    .selectFrom('products')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('external_source', '=', source)
    .where('external_ref', '=', externalRef);
  if (forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export function findProductByNumber(db: Database | Trx, companyId: string, productNumber: string) {
  return db.selectFrom('products').selectAll().where('company_id', '=', companyId).where('product_number', '=', productNumber).executeTakeFirst();
}

/** How an invoice line or contract item names a product: by reference or by article number. */
export type ProductLookup = { source: string; ref: string } | { productNumber: string };

export function findProductByRefOrNumber(db: Database | Trx, companyId: string, lookup: ProductLookup): Promise<ProductRow | undefined> {
  return 'productNumber' in lookup ? findProductByNumber(db, companyId, lookup.productNumber) : findProductByRef(db, companyId, lookup.source, lookup.ref);
}
