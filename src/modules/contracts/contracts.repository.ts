import { type Selectable, sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { ContractCyclesTable, ContractItemsTable, ContractsTable } from '../../db/schema-contracts.ts';
import type { Trx } from '../../db/transaction.ts';
import type { OpenCredit } from './contract-credit.ts';

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
    .values(
      items.map((item) => ({
        ...item,
        tiers: item.tiers ? JSON.stringify(item.tiers) : null,
        quantities: item.quantities ? JSON.stringify(item.quantities) : null,
        billed_quantities: item.billed_quantities ? JSON.stringify(item.billed_quantities) : null,
      })),
    )
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
        quantities: eb.ref('excluded.quantities'),
        billed_quantities: eb.ref('excluded.billed_quantities'),
      })),
    )
    .execute();
}

/**
 * A column of the contract row (`contracts` in the query): its credits with something still
 * open, oldest first, as OpenCredit objects — no round trip of its own in the billing run.
 */
export const openCreditsColumn = sql<OpenCredit[]>`(
  select coalesce(json_agg(json_build_object(
      'billingDate', c.billing_date, 'position', c.position, 'itemRef', c.item_ref, 'vatRate', c.vat_rate,
      'description', c.description, 'servicePeriod', json_build_object('start', c.service_period_start, 'end', c.service_period_end),
      'amountCents', c.amount_cents, 'openCents', c.amount_cents - coalesce(u.used, 0))
    order by c.billing_date, c.position), '[]'::json)
  from contract_credits c
  left join lateral (
    select sum(x.amount_cents) as used from contract_credit_uses x
    where x.company_id = c.company_id and x.contract_id = c.contract_id and x.billing_date = c.billing_date and x.position = c.position
  ) u on true
  where c.company_id = contracts.company_id and c.contract_id = contracts.id and c.amount_cents > coalesce(u.used, 0)
)`;

export type ContractCreditRecord = {
  billing_date: string;
  position: number;
  item_ref: string;
  vat_rate: 0 | 7 | 19;
  description: string;
  service_period_start: string;
  service_period_end: string;
  amount_cents: number;
  open_cents: number;
  uses: { invoice_id: string; invoice_number: string | null; used_on: string; amount_cents: number }[];
};

/** Every credit of a contract (oldest first) with what is open and which invoices used it (the app's contract page). */
export async function findContractCredits(db: Database | Trx, companyId: string, contractId: string): Promise<ContractCreditRecord[]> {
  const [credits, uses] = await Promise.all([
    db
      .selectFrom('contract_credits')
      .select(['billing_date', 'position', 'item_ref', 'vat_rate', 'description', 'service_period_start', 'service_period_end', 'amount_cents'])
      .where('company_id', '=', companyId)
      .where('contract_id', '=', contractId)
      .orderBy('billing_date')
      .orderBy('position')
      .execute(),
    db
      .selectFrom('contract_credit_uses as u')
      .leftJoin('invoices as i', (join) => join.onRef('i.company_id', '=', 'u.company_id').onRef('i.id', '=', 'u.invoice_id'))
      .select(['u.billing_date', 'u.position', 'u.invoice_id', 'i.number as invoice_number', 'u.used_on', 'u.amount_cents'])
      .where('u.company_id', '=', companyId)
      .where('u.contract_id', '=', contractId)
      .orderBy('u.used_on')
      .execute(),
  ]);
  return credits.map((credit) => {
    const own = uses
      .filter((use) => use.billing_date === credit.billing_date && use.position === credit.position)
      .map(({ invoice_id, invoice_number, used_on, amount_cents }) => ({ invoice_id, invoice_number, used_on, amount_cents }));
    return { ...credit, open_cents: credit.amount_cents - own.reduce((sum, use) => sum + use.amount_cents, 0), uses: own };
  });
}
