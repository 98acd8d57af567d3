import { AppError } from '../../shared/errors.ts';
import type { ProductLookup, ProductRow } from './products.repository.ts';

/** The Product as the API shows it: the body fields plus id and reference, all present. */
export function productView(row: ProductRow) {
  return {
    id: row.id,
    external_source: row.external_source,
    external_ref: row.external_ref,
    product_number: row.product_number,
    name: row.name,
    description: row.description,
    unit: row.unit,
    unit_price_net: row.unit_price_net,
    vat_rate: row.vat_rate,
    billing_interval: row.billing_interval,
    pricing_model: row.pricing_model,
    included_quantity: row.included_quantity,
    overage_price: row.overage_price,
    tiers: row.tiers?.map((tier) => ({ from: tier.from, to: tier.to ?? null, unit_price: tier.unit_price, flat_price: tier.flat_price ?? null })) ?? null,
  };
}
export type ProductView = ReturnType<typeof productView>;

/** 404 product_not_found naming what was looked for (product_ref or product_number). */
export function productNotFound(lookup: ProductLookup): AppError {
  return new AppError('product_not_found', 'productNumber' in lookup ? { product_number: lookup.productNumber } : { product_ref: lookup.ref });
}
