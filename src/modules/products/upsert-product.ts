import type { Database } from '../../db/connection.ts';
import type { Tier } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError, RetryTransaction, type ValidationIssue, validationFailed } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { type BillingInterval, checkPricing, type PricingModel, type TierInput } from './pricing.ts';
import { type ProductView, productView } from './product-view.ts';
import { findProductByNumber, findProductByRef, type ProductRow } from './products.repository.ts';

export type ProductInput = {
  product_number: string;
  name: string;
  description?: string | null;
  unit?: string | null;
  unit_price_net: string;
  vat_rate?: 0 | 7 | 19;
  billing_interval: BillingInterval;
  pricing_model?: string | null;
  included_quantity?: string | number | null;
  overage_price?: string | null;
  tiers?: TierInput[] | null;
};

type Fields = {
  product_number: string;
  name: string;
  description: string | null;
  unit: string | null;
  unit_price_net: string;
  vat_rate: 0 | 7 | 19;
  billing_interval: BillingInterval;
  pricing_model: PricingModel;
  included_quantity: string | null;
  overage_price: string | null;
  tiers: Tier[] | null;
};

/** PUT semantics: the record becomes what is sent; omitted optional fields are null. */
function normalize(input: ProductInput): Fields {
  // The pricing.* codes win over validation_failed, so they are checked first.
  const { terms, issues: pricingIssues } = checkPricing(input, input.billing_interval);
  const issues: ValidationIssue[] = [...pricingIssues];
  const name = input.name.trim();
  if (!name) issues.push({ loc: ['body', 'name'], type: 'too_short', msg: 'Name must not be blank' });
  if (issues.length > 0) throw validationFailed(issues);
  return {
    product_number: input.product_number,
    name,
    description: input.description ?? null,
    unit: input.unit ?? null,
    unit_price_net: terms.unit_price_net,
    // 19 % is the German standard rate; 7 % and 0 % must be chosen explicitly.
    vat_rate: input.vat_rate ?? 19,
    billing_interval: input.billing_interval,
    pricing_model: terms.pricing_model,
    included_quantity: terms.included_quantity,
    overage_price: terms.overage_price,
    tiers: terms.tiers ? [...terms.tiers] : null,
  };
}

/** Tiers compared field by field: jsonb does not keep key order. */
const tiersKey = (tiers: readonly Tier[] | null) => JSON.stringify(tiers?.map((t) => [t.from, t.to ?? null, t.unit_price, t.flat_price ?? null]) ?? null);

function isUnchanged(existing: ProductRow, fields: Fields): boolean {
  return (Object.keys(fields) as (keyof Fields)[]).every((key) =>
    key === 'tiers' ? tiersKey(existing.tiers) === tiersKey(fields.tiers) : existing[key] === fields[key],
  );
}

export type UpsertProductResult = { created: boolean; product: ProductView };

export async function upsertProduct(
  db: Database,
  clock: Clock,
  companyId: string,
  ref: { source: string; externalRef: string },
  input: ProductInput,
): Promise<UpsertProductResult> {
  const fields = normalize(input);
  const columns = { ...fields, tiers: fields.tiers ? JSON.stringify(fields.tiers) : null };
  return inTransaction(db, async (trx) => {
    const existing = await findProductByRef(trx, companyId, ref.source, ref.externalRef, true);
    if (existing && isUnchanged(existing, fields)) return { created: false, product: productView(existing) };
    // Checked here for a clear answer; a concurrent taker trips the unique index, the
    // transaction runs again and then ends here.
    const holder = await findProductByNumber(trx, companyId, fields.product_number);
    if (holder && holder.id !== existing?.id) {
      // Each statement sees what has committed before it: the holder may be this very
      // reference, created by a concurrent request after the lookup above. Run again as an update.
      if (!existing && holder.external_source === ref.source && holder.external_ref === ref.externalRef) throw new RetryTransaction();
      throw new AppError('product_number_taken');
    }
    const now = clock.now();
    if (existing) {
      const updated = await trx
        .updateTable('products')
        .set({ ...columns, updated_at: now })
        .where('company_id', '=', companyId)
        .where('id', '=', existing.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { created: false, product: productView(updated) };
    }
    const inserted = await trx
      .insertInto('products')
      .values({
        company_id: companyId,
        id: newId('prd'),
        external_source: ref.source,
        external_ref: ref.externalRef,
        ...columns,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(['company_id', 'external_source', 'external_ref']).doNothing())
      .returningAll()
      .executeTakeFirst();
    // A concurrent request created this reference first: run again, now as an update.
    if (!inserted) throw new RetryTransaction();
    return { created: true, product: productView(inserted) };
  });
}
