import type { Database } from '../../db/connection.ts';
import type { Trx } from '../../db/transaction.ts';
import { type ContractRow, findContractCycles, findContractItemsWithProduct } from './contracts.repository.ts';

// The Contract as the API shows it (interface §2): every field, items and cycles included.

export async function contractView(db: Database | Trx, row: ContractRow, customerExternalRef: string | null) {
  const [items, cycles] = await Promise.all([findContractItemsWithProduct(db, row.company_id, row.id), findContractCycles(db, row.company_id, row.id)]);
  return {
    id: row.id,
    number: row.number,
    external_source: row.external_source,
    external_ref: row.external_ref,
    customer_external_ref: customerExternalRef,
    name: row.name,
    status: row.status,
    billing_interval: row.billing_interval,
    start_date: row.start_date,
    billing_starts_on: row.billing_starts_on,
    end_date: row.end_date,
    invoice_mode: row.invoice_mode,
    payment_terms_days: row.payment_terms_days,
    next_billing_date: row.next_billing_date,
    usage_open_from: row.usage_open_from,
    items: items.map((item) => ({
      ref: item.ref,
      product_ref: item.product_external_ref ?? null,
      description: item.description,
      quantity: item.quantity,
      billing_timing: item.billing_timing,
      unit_price_net: item.unit_price_net,
      pricing_model: item.pricing_model,
      ends_after: item.ends_after,
    })),
    cycles: cycles.map((cycle) => ({
      start: cycle.start_date,
      end: cycle.end_date,
      status: cycle.status,
      invoice_id: cycle.invoice_id,
      invoice_number: cycle.invoice_number ?? null,
      invoice_status: cycle.invoice_status ?? null,
      // numeric(23, 2): two decimals as stored.
      total_net: cycle.total_net,
    })),
  };
}
export type ContractView = Awaited<ReturnType<typeof contractView>>;
