import type { Tier } from '../../db/schema.ts';
import { D } from '../../shared/decimal.ts';
import { formatMoney, formatQuantity } from '../../shared/german-format.ts';
import type { PricingTerms } from '../products/pricing.ts';
import type { Proration } from './calendar.ts';
import { proratedAmount } from './calendar.ts';

// The invoice lines of one contract item for one billed period, with texts a customer
// understands: every tier, package and quota says what was counted and at what price.
// Each line is quantity × unit price (design §4 line arithmetic: each line's net is
// rounded on its own); a period shorter than the cycle is one line at the prorated amount.
// Pure.

export type PricedItem = PricingTerms & { description: string; quantity: string; unit: string | null };

/** One invoice line before numbering: its text, quantity, unit and net unit price. */
export type PricedLine = { description: string; quantity: string; unit: string | null; unitPriceNet: string };

export const INTERVAL_WORD = { month: 'Monat', quarter: 'Quartal', year: 'Jahr' } as const;
export type IntervalWord = keyof typeof INTERVAL_WORD;

/** A quantity as a person reads it: "1.50" → "1,5". */
export const q = (value: string) => formatQuantity(new D(value).toFixed());
const unitText = (item: PricedItem) => item.unit ?? 'Einheiten';

function tierText(item: PricedItem, tier: Tier): string {
  return tier.to === null ? `ab ${q(tier.from)} ${unitText(item)}` : `${q(tier.from)} bis unter ${q(tier.to)} ${unitText(item)}`;
}

/** A tier's flat price as a line of its own (none when it has none). */
function flatPriceLine(item: PricedItem, tier: Tier): PricedLine[] {
  if (!tier.flat_price || new D(tier.flat_price).isZero()) return [];
  return [{ description: `${item.description}, Grundpreis der Staffel ${tierText(item, tier)}`, quantity: '1', unit: null, unitPriceNet: tier.flat_price }];
}

/**
 * The lines of a usage-priced item (per_unit, package, graduated, volume, quota) for
 * `used` units in a billed period. A quota's base fee is a flat fee: prorated with the
 * period when `proration` covers less than a cycle; tiers, packages and the included
 * quantity apply to the period's usage as it is.
 */
export function usageLines(item: PricedItem, used: string, proration: Proration | null, interval: IntervalWord): PricedLine[] {
  const amount = new D(used);
  const unit = item.unit;
  switch (item.pricing_model) {
    case 'flat':
    case 'per_unit':
      return [{ description: item.description, quantity: amount.toFixed(), unit, unitPriceNet: item.unit_price_net }];
    case 'package': {
      const size = new D(item.included_quantity ?? '1');
      const packages = amount.dividedBy(size).ceil();
      return [
        {
          description: `${item.description}: ${q(packages.toFixed())} angefangene Pakete à ${q(size.toFixed())} ${unitText(item)} (genutzt: ${q(used)} ${unitText(item)})`,
          quantity: packages.toFixed(),
          unit: 'Pakete',
          unitPriceNet: item.unit_price_net,
        },
      ];
    }
    case 'graduated': {
      const lines: PricedLine[] = [];
      const tiers = item.tiers ?? [];
      for (const [index, tier] of tiers.entries()) {
        if (amount.lessThan(tier.from)) break;
        // Quantities beyond a closed last tier are priced by it (as priceForQuantity does).
        const upper = tier.to === null || amount.lessThan(tier.to) || index === tiers.length - 1 ? amount : new D(tier.to);
        const slice = D.max(0, upper.minus(tier.from));
        if (!slice.isZero())
          lines.push({ description: `${item.description}, Staffel ${tierText(item, tier)}`, quantity: slice.toFixed(), unit, unitPriceNet: tier.unit_price });
        lines.push(...flatPriceLine(item, tier));
        if (tier.to === null || amount.lessThan(tier.to)) break;
      }
      return lines;
    }
    case 'volume': {
      const tiers = item.tiers ?? [];
      const tier = tiers.find((t) => t.to === null || amount.lessThan(t.to)) ?? tiers[tiers.length - 1];
      if (!tier) return [];
      const lines: PricedLine[] = [
        {
          description: `${item.description} (Staffelpreis ${tierText(item, tier)} für die gesamte Menge)`,
          quantity: amount.toFixed(),
          unit,
          unitPriceNet: tier.unit_price,
        },
      ];
      lines.push(...flatPriceLine(item, tier));
      return lines;
    }
    case 'quota': {
      const included = new D(item.included_quantity ?? '0');
      const base = proration && proration.days < proration.cycleDays ? proratedAmount(item.unit_price_net, proration) : item.unit_price_net;
      const baseText =
        proration && proration.days < proration.cycleDays
          ? `${item.description}, Grundgebühr inkl. ${q(included.toFixed())} ${unitText(item)} (anteilig ${proration.days} von ${proration.cycleDays} Tagen, ${formatMoney(item.unit_price_net)} je ${INTERVAL_WORD[interval]})`
          : `${item.description}, Grundgebühr inkl. ${q(included.toFixed())} ${unitText(item)} (genutzt: ${q(used)} ${unitText(item)})`;
      const lines: PricedLine[] = [{ description: baseText, quantity: '1', unit: null, unitPriceNet: base }];
      const overage = amount.minus(included);
      if (overage.greaterThan(0))
        lines.push({
          description: `${item.description}, über die Inklusivmenge von ${q(included.toFixed())} ${unitText(item)} hinaus`,
          quantity: overage.toFixed(),
          unit,
          unitPriceNet: item.overage_price ?? '0',
        });
      return lines;
    }
  }
}

/**
 * The line of an item billed by its quantity (flat and advance items) for a period: the
 * whole cycle as quantity × unit price; a shorter period as one line at
 * round half up(full amount × days ÷ cycle days, 2), its text naming the days.
 */
export function quantityLines(item: PricedItem, fullAmount: string, proration: Proration, interval: IntervalWord): PricedLine[] {
  if (proration.days === proration.cycleDays) {
    if (item.pricing_model === 'flat' || item.pricing_model === 'per_unit')
      return [{ description: item.description, quantity: new D(item.quantity).toFixed(), unit: item.unit, unitPriceNet: item.unit_price_net }];
    return usageLines(item, item.quantity, null, interval);
  }
  const each =
    item.pricing_model === 'flat' || item.pricing_model === 'per_unit'
      ? `${q(item.quantity)} × ${formatMoney(item.unit_price_net)}`
      : `${formatMoney(fullAmount)}`;
  return [
    {
      description: `${item.description} (anteilig ${proration.days} von ${proration.cycleDays} Tagen; ${each} je ${INTERVAL_WORD[interval]})`,
      quantity: '1',
      unit: null,
      unitPriceNet: proratedAmount(fullAmount, proration),
    },
  ];
}
