import { type Selectable, sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { ContractCyclesTable, ContractItemsTable, ContractsTable } from '../../db/schema-contracts.ts';
import type { Trx } from '../../db/transaction.ts';

// Plain Kysely functions for contracts, their items and cycles.

export type ContractRow = Selectable<ContractsTable>;
export type ContractItemRow = Selectable<ContractItemsTable>;
export type ContractCycleRow = Selectable<ContractCyclesTable>;

export function findContractByRef(db: Database | Trx, companyId: string, source: string, externalRef: string, forUpdate = false) {
  let query = db
    .selectFrom('contracts')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('external_source', '=', source)
    .where('external_ref', '=', externalRef);
  if (forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export function findContractItems(db: Database | Trx, companyId: string, contractId: string) {
  return db.selectFrom('contract_items').selectAll().where('company_id', '=', companyId).where('contract_id', '=', contractId).orderBy('position').execute();
}

/** The items with the reference of the product each names (for the view). */
export function findContractItemsWithProduct(db: Database | Trx, companyId: string, contractId: string) {
  return db
    .selectFrom('contract_items as i')
    .leftJoin('products as p', (join) => join.onRef('p.company_id', '=', 'i.company_id').onRef('p.id', '=', 'i.product_id'))
    .selectAll('i')
    .select(['p.external_ref as product_external_ref', 'p.product_number as product_number'])
    .where('i.company_id', '=', companyId)
    .where('i.contract_id', '=', contractId)
    .orderBy('i.position')
    .execute();
}

/** The cycles, newest first, with the number and state of the invoice each billed. */
export function findContractCycles(db: Database | Trx, companyId: string, contractId: string) {
  return db
    .selectFrom('contract_cycles as c')
    .leftJoin('invoices as inv', (join) => join.onRef('inv.company_id', '=', 'c.company_id').onRef('inv.id', '=', 'c.invoice_id'))
    .selectAll('c')
    .select(['inv.number as invoice_number', 'inv.status as invoice_status'])
    .where('c.company_id', '=', companyId)
    .where('c.contract_id', '=', contractId)
    .orderBy('c.billing_date', 'desc')
    .execute();
}

/**
 * Makes the stored items what `items` says: items no longer listed are deleted (only a
 * draft loses items, and a draft has no usage), the others inserted or updated in place.
 */
export async function saveContractItems(trx: Trx, companyId: string, contractId: string, items: readonly ContractItemRow[]) {
  const refs = items.map((item) => item.ref);
  let removal = trx.deleteFrom('contract_items').where('company_id', '=', companyId).where('contract_id', '=', contractId);
  if (refs.length) removal = removal.where(sql<boolean>`not (ref = any(${refs}::text[]))`);
  await removal.execute();
  if (items.length === 0) return;
  await trx
    .insertInto('contract_items')
    .values(items.map((item) => ({ ...item, tiers: item.tiers ? JSON.stringify(item.tiers) : null })))
    .onConflict((oc) =>
      oc.columns(['company_id', 'contract_id', 'ref']).doUpdateSet((eb) => ({
        position: eb.ref('excluded.position'),
        product_id: eb.ref('excluded.product_id'),
        description: eb.ref('excluded.description'),
        quantity: eb.ref('excluded.quantity'),
        unit: eb.ref('excluded.unit'),
        billing_timing: eb.ref('excluded.billing_timing'),
        unit_price_net: eb.ref('excluded.unit_price_net'),
        vat_rate: eb.ref('excluded.vat_rate'),
        pricing_model: eb.ref('excluded.pricing_model'),
        included_quantity: eb.ref('excluded.included_quantity'),
        overage_price: eb.ref('excluded.overage_price'),
        tiers: eb.ref('excluded.tiers'),
        starts_on: eb.ref('excluded.starts_on'),
        ends_after: eb.ref('excluded.ends_after'),
      })),
    )
    .execute();
}
