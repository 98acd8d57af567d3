import type { Tier } from '../../db/schema.ts';
import type { QuantityRun } from '../../db/schema-contracts.ts';
import { addDays } from '../../shared/dates.ts';
import { D } from '../../shared/decimal.ts';
import { AppError } from '../../shared/errors.ts';
import { PRICING_MODELS, type TierInput } from '../products/pricing.ts';
import { billsUsage } from './billing-plan.ts';
import type { ContractItemInput } from './contract-input.ts';
import type { ContractItemRow, ContractRow } from './contracts.repository.ts';
import { compressRuns, effectiveRuns, firstDayOf, quantityHistory, sameQuantity, withQuantityChange } from './quantity-timeline.ts';

// An item of a running contract that is sent again (issue 24, point 1): every term agreed
// when it was added stays — pricing model, unit price, package size or quota
// (included_quantity), overage price, tiers, VAT rate, billing timing (and the product,
// checked by the caller). A term left out keeps the agreed one (never the product's of
// today); a term sent must be the agreed one, compared as decimals, else 409
// contract.terms_frozen with args {ref, terms} and nothing changes. A new deal is a new ref.
// The quantity may change: it takes effect today (quantity-timeline.ts).

export type FrozenTerm = 'pricing_model' | 'unit_price_net' | 'included_quantity' | 'overage_price' | 'tiers' | 'vat_rate' | 'billing_timing';

const isNegative = (value: string | number | null | undefined) => value !== null && value !== undefined && new D(value).isNegative() && !new D(value).isZero();
const sameDecimal = (a: string | number | null | undefined, b: string | null) =>
  a === null || a === undefined ? b === null : b !== null && new D(a).equals(b);
/** A tier's flat price: absent, null and 0 are no flat price. */
const flat = (value: string | null | undefined) => (value === null || value === undefined ? '0' : value);

function sameTiers(sent: readonly TierInput[] | null, kept: readonly Tier[] | null): boolean {
  const a = sent ?? [];
  const b = kept ?? [];
  return (
    a.length === b.length &&
    a.every((tier, i) => {
      const other = b[i]!;
      return (
        sameDecimal(tier.from, other.from) &&
        sameDecimal(tier.to ?? null, other.to) &&
        sameDecimal(tier.unit_price, other.unit_price) &&
        new D(flat(tier.flat_price)).equals(flat(other.flat_price))
      );
    })
  );
}

/** Values no pricing model accepts, refused with their pricing.* codes before the terms are compared (they win over a conflict). */
function checkSentValues(input: ContractItemInput) {
  if (input.pricing_model !== undefined && input.pricing_model !== null && !(PRICING_MODELS as readonly string[]).includes(input.pricing_model))
    throw new AppError('pricing.model_unknown', { supported: PRICING_MODELS });
  if (isNegative(input.quantity) || isNegative(input.included_quantity) || input.tiers?.some((tier) => isNegative(tier.from) || isNegative(tier.to)))
    throw new AppError('pricing.quantity_negative');
  if (
    isNegative(input.unit_price_net) ||
    isNegative(input.overage_price) ||
    input.tiers?.some((tier) => isNegative(tier.unit_price) || isNegative(tier.flat_price))
  )
    throw new AppError('pricing.negative_value');
}

/** The agreed terms the request would change, in a fixed order. */
function changedTerms(input: ContractItemInput, kept: ContractItemRow): FrozenTerm[] {
  const changed: FrozenTerm[] = [];
  if (input.pricing_model !== undefined && input.pricing_model !== null && input.pricing_model !== kept.pricing_model) changed.push('pricing_model');
  if (input.unit_price_net !== undefined && input.unit_price_net !== null && !sameDecimal(input.unit_price_net, kept.unit_price_net))
    changed.push('unit_price_net');
  if (input.included_quantity !== undefined && !sameDecimal(input.included_quantity, kept.included_quantity)) changed.push('included_quantity');
  if (input.overage_price !== undefined && !sameDecimal(input.overage_price, kept.overage_price)) changed.push('overage_price');
  if (input.tiers !== undefined && !sameTiers(input.tiers, kept.tiers)) changed.push('tiers');
  if (input.vat_rate !== undefined && input.vat_rate !== null && input.vat_rate !== kept.vat_rate) changed.push('vat_rate');
  if (input.billing_timing !== undefined && input.billing_timing !== null && input.billing_timing !== kept.billing_timing) changed.push('billing_timing');
  return changed;
}

/**
 * The days an item billed by quantity was billed so far and at which quantity: as recorded,
 * or — for an item billed before the record existed — as it stands now (what it was billed
 * at, since nothing could change it since). Null when nothing was billed by quantity yet.
 */
export function billedSoFar(contract: ContractRow, item: ContractItemRow): QuantityRun[] | null {
  if (item.billed_quantities) return item.billed_quantities;
  if (billsUsage(item)) return null;
  const arrearsEnd = contract.last_billing_date && contract.usage_open_from ? addDays(contract.usage_open_from, -1) : null;
  const end =
    item.billing_timing === 'advance'
      ? item.billed_until
      : arrearsEnd && item.ends_after !== null && item.ends_after < arrearsEnd
        ? item.ends_after
        : arrearsEnd;
  const first = firstDayOf(contract, item);
  if (end === null || end < first) return null;
  return compressRuns(effectiveRuns(contract, item, first, end));
}

/**
 * The row of a kept item of the running contract `contract` as the request leaves it:
 * terms as agreed (a different one sent → 409), text, unit, quantity (a change from
 * `today` on) and end as sent, and the days billed so far recorded before the change.
 */
export function keptItemRow(contract: ContractRow, kept: ContractItemRow, input: ContractItemInput, position: number, today: string): ContractItemRow {
  checkSentValues(input);
  const changed = changedTerms(input, kept);
  if (changed.length > 0)
    throw new AppError(
      'contract.terms_frozen',
      { args: { ref: kept.ref, terms: changed } },
      `Die Bedingungen der Position ${kept.ref} (${changed.join(', ')}) wurden beim Hinzufügen vereinbart und bleiben. Andere Bedingungen sind eine neue Position: eine neue Referenz (ref); die bisherige endet mit ends_after.`,
    );
  const quantity = input.quantity === undefined || input.quantity === null ? '1' : String(input.quantity);
  const same = sameQuantity(quantity, kept.quantity);
  return {
    ...kept,
    position,
    description: input.description?.trim() || kept.description,
    quantity: same ? kept.quantity : quantity,
    unit: input.unit !== undefined ? input.unit : kept.unit,
    ends_after: input.ends_after ?? null,
    quantities: same ? kept.quantities : withQuantityChange(quantityHistory(kept), kept.starts_on, today, quantity),
    billed_quantities: billedSoFar(contract, kept),
  };
}
