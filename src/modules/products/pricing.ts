import type { Tier } from '../../db/schema.ts';
import { D, type DecimalValue, roundMoney } from '../../shared/decimal.ts';
import { AppError, type ValidationIssue } from '../../shared/errors.ts';
import { MAX_UNIT_PRICE } from '../../shared/money.ts';

// Pricing models (design §6) as pure functions: the checks that refuse inconsistent terms
// with their pricing.* codes, and the net price of a quantity. Shared by products and, later,
// contract items; nothing here touches the database.

export const PRICING_MODELS = ['flat', 'per_unit', 'package', 'graduated', 'volume', 'quota'] as const;
export type PricingModel = (typeof PRICING_MODELS)[number];
export type BillingInterval = 'one_off' | 'month' | 'quarter' | 'year';

const TIERED: readonly string[] = ['graduated', 'volume'];

/** The terms a price is computed from; decimals are exact strings. */
export type PricingTerms = {
  pricing_model: PricingModel;
  unit_price_net: string;
  included_quantity: string | null;
  overage_price: string | null;
  tiers: readonly Tier[] | null;
};

/** A tier as it arrives: `from` and `unit_price` may be missing (pricing.tier_incomplete). */
export type TierInput = {
  from?: string | number | null;
  to?: string | number | null;
  unit_price?: string | null;
  flat_price?: string | null;
};

export type PricingInput = {
  pricing_model?: string | null;
  unit_price_net: string;
  included_quantity?: string | number | null;
  overage_price?: string | null;
  tiers?: readonly TierInput[] | null;
};

export function defaultPricingModel(interval: BillingInterval): PricingModel {
  return interval === 'one_off' ? 'per_unit' : 'flat';
}

function isPricingModel(value: string): value is PricingModel {
  return (PRICING_MODELS as readonly string[]).includes(value);
}

/** JSON numbers were checked by the schema (x-decimal), so their text is a plain decimal. */
function text(value: string | number | null | undefined): string | null {
  return value === null || value === undefined ? null : String(value);
}

const negative = (value: string | null) => value !== null && new D(value).lessThan(0);

/**
 * Checks pricing terms in the order of the interface's precedence and returns them
 * normalised. Domain refusals throw their pricing.* code (they win over validation_failed);
 * inputs a model does not use are refused too, so nothing sent is silently ignored:
 * tiers on an untiered model → pricing.tier_invalid, an overage price outside `quota` →
 * pricing.overage_needs_quota, included_quantity where no model reads it → returned as a
 * validation issue (extra_forbidden), like a quota without overage_price (missing).
 */
export function checkPricing(
  input: PricingInput,
  interval: BillingInterval,
  loc: (string | number)[] = ['body'],
): { terms: PricingTerms; issues: ValidationIssue[] } {
  const model = input.pricing_model ?? defaultPricingModel(interval);
  if (!isPricingModel(model)) throw new AppError('pricing.model_unknown', { supported: PRICING_MODELS });

  const includedQuantity = text(input.included_quantity);
  const overagePrice = input.overage_price ?? null;
  const rawTiers = input.tiers ?? null;
  const tiers = rawTiers?.map((tier) => ({
    from: text(tier.from),
    to: text(tier.to),
    unit_price: tier.unit_price ?? null,
    flat_price: tier.flat_price ?? null,
  }));

  if (negative(includedQuantity) || tiers?.some((tier) => negative(tier.from) || negative(tier.to))) {
    throw new AppError('pricing.quantity_negative');
  }
  if (negative(input.unit_price_net) || negative(overagePrice) || tiers?.some((tier) => negative(tier.unit_price) || negative(tier.flat_price))) {
    throw new AppError('pricing.negative_value');
  }
  if (overagePrice !== null && includedQuantity === null) throw new AppError('pricing.overage_needs_quota');
  if (model === 'package' && (includedQuantity === null || new D(includedQuantity).isZero())) {
    throw new AppError('pricing.package_size_missing');
  }
  if (TIERED.includes(model) && (!tiers || tiers.length === 0)) throw new AppError('pricing.tiers_empty');
  if (tiers?.some((tier) => tier.from === null || tier.unit_price === null)) throw new AppError('pricing.tier_incomplete');
  const complete: Tier[] | null = tiers?.map((tier) => ({ ...tier, from: tier.from!, unit_price: tier.unit_price! })) ?? null;
  if (complete) checkTierSequence(complete);
  if (model === 'quota' && includedQuantity === null) throw new AppError('pricing.overage_needs_quota');

  // Inputs the chosen model does not read.
  if (complete && complete.length > 0 && !TIERED.includes(model)) {
    throw new AppError('pricing.tier_invalid', {}, `Tiers are only used by the graduated and volume models, not by ${model}.`);
  }
  if (overagePrice !== null && model !== 'quota') {
    throw new AppError('pricing.overage_needs_quota', {}, `An overage price is only used by the quota model, not by ${model}.`);
  }
  const issues: ValidationIssue[] = [];
  if (includedQuantity !== null && model !== 'package' && model !== 'quota') {
    issues.push({
      loc: [...loc, 'included_quantity'],
      type: 'extra_forbidden',
      msg: `included_quantity is only used by the package and quota models, not by ${model}`,
    });
  }
  if (model === 'quota' && overagePrice === null) {
    issues.push({ loc: [...loc, 'overage_price'], type: 'missing', msg: 'The quota model needs overage_price (use "0" when usage beyond the quota is free)' });
  }
  // Prices bounded like an invoice line's unit price (no invoice could carry more).
  const prices: [string | null, (string | number)[]][] = [
    [input.unit_price_net, ['unit_price_net']],
    [overagePrice, ['overage_price']],
    ...(complete ?? []).flatMap((tier, i): [string | null, (string | number)[]][] => [
      [tier.unit_price, ['tiers', i, 'unit_price']],
      [tier.flat_price ?? null, ['tiers', i, 'flat_price']],
    ]),
  ];
  for (const [price, path] of prices) {
    if (price !== null && new D(price).greaterThan(MAX_UNIT_PRICE)) {
      issues.push({ loc: [...loc, ...path], type: 'greater_than_maximum', msg: `Input should be at most ${MAX_UNIT_PRICE}` });
    }
  }

  return {
    terms: {
      pricing_model: model,
      unit_price_net: input.unit_price_net,
      included_quantity: includedQuantity,
      overage_price: overagePrice,
      tiers: complete,
    },
    issues,
  };
}

/** Tiers cover from ≤ q < to: the first starts at 0, each next one where the previous ends. */
function checkTierSequence(tiers: readonly Tier[]) {
  let previous: Tier | undefined;
  for (const tier of tiers) {
    const from = new D(tier.from);
    if (!previous && !from.isZero()) throw new AppError('pricing.tier_invalid', {}, 'The first tier must start at 0.');
    if (tier.to !== null && new D(tier.to).lessThanOrEqualTo(from)) {
      throw new AppError('pricing.tier_invalid', {}, 'A tier must end (to) above where it starts (from).');
    }
    if (previous) {
      if (previous.to === null) throw new AppError('pricing.tiers_overlap', {}, 'Only the last tier may be open-ended (to null).');
      if (from.greaterThan(previous.to)) throw new AppError('pricing.tier_invalid', {}, 'A tier must start where the previous one ends; there is a gap.');
      if (from.lessThan(previous.to)) throw new AppError('pricing.tiers_overlap', {}, 'A tier must start where the previous one ends; they overlap.');
    }
    previous = tier;
  }
}

/** The tier a quantity falls in (from ≤ q < to); beyond a closed last tier the last one goes on. */
function tierIndexFor(tiers: readonly Tier[], quantity: DecimalValue): number {
  const index = tiers.findIndex((tier) => tier.to === null || quantity.lessThan(tier.to));
  return index === -1 ? tiers.length - 1 : index;
}

function requireTiers(terms: PricingTerms): readonly Tier[] {
  if (!terms.tiers || terms.tiers.length === 0) throw new AppError('pricing.tiers_empty');
  return terms.tiers;
}

/**
 * Net amount for `quantity` units in one billing interval, rounded half up to 2 decimals
 * once at the end (design §4 line arithmetic):
 * - flat, per_unit: unit_price_net × q
 * - package: ⌈q / included_quantity⌉ × unit_price_net (every started package)
 * - graduated: each tier prices its own slice, plus the flat_price of every tier reached
 * - volume: the whole q at the unit_price of the tier q falls in, plus that tier's flat_price
 * - quota: unit_price_net as base fee + max(0, q − included_quantity) × overage_price
 * A tier is reached when q ≥ its from, so a flat_price on the first tier is a base fee
 * that applies even to 0 units. Quantities beyond a closed last tier are priced by it.
 */
export function priceForQuantity(terms: PricingTerms, quantity: string | number | DecimalValue): string {
  const q = new D(quantity);
  if (q.isNegative() && !q.isZero()) throw new AppError('pricing.quantity_negative');
  const unitPrice = new D(terms.unit_price_net);
  switch (terms.pricing_model) {
    case 'flat':
    case 'per_unit':
      return roundMoney(unitPrice.times(q));
    case 'package': {
      const size = new D(terms.included_quantity ?? 0);
      if (size.lessThanOrEqualTo(0)) throw new AppError('pricing.package_size_missing');
      return roundMoney(q.dividedBy(size).ceil().times(unitPrice));
    }
    case 'graduated': {
      const tiers = requireTiers(terms);
      const last = tierIndexFor(tiers, q);
      let total = new D(0);
      tiers.slice(0, last + 1).forEach((tier, index) => {
        const upper = index === last || tier.to === null ? q : D.min(q, tier.to);
        const slice = D.max(0, upper.minus(tier.from));
        total = total.plus(slice.times(tier.unit_price)).plus(tier.flat_price ?? 0);
      });
      return roundMoney(total);
    }
    case 'volume': {
      const tiers = requireTiers(terms);
      const tier = tiers[tierIndexFor(tiers, q)]!;
      return roundMoney(q.times(tier.unit_price).plus(tier.flat_price ?? 0));
    }
    case 'quota': {
      if (terms.included_quantity === null) throw new AppError('pricing.overage_needs_quota');
      const overage = D.max(0, q.minus(terms.included_quantity));
      return roundMoney(unitPrice.plus(overage.times(terms.overage_price ?? 0)));
    }
  }
}
