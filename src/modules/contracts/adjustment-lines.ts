import type { ContractInterval } from '../../db/schema-contracts.ts';
import { D, type DecimalValue } from '../../shared/decimal.ts';
import { formatMoney, formatPeriod } from '../../shared/german-format.ts';
import { type PricingTerms, priceForQuantity } from '../products/pricing.ts';
import { daysBetween, piecesByCycle, proratedAmount } from './calendar.ts';
import { INTERVAL_WORD, q } from './priced-lines.ts';
import type { QuantityDifference, TimelineItem } from './quantity-timeline.ts';

// The adjustment lines of an item billed by quantity (issue 24): days billed already (in
// advance, or in arrears) whose quantity now stands otherwise — the quantity changed after
// they were billed, the contract was paused, the item ended earlier — are charged or
// credited on the next invoice. One line per stretch of days with one old and one new
// quantity inside one cycle:
//   amount = round half up(|price(new) − price(old)| × days ÷ days of the cycle, 2),
// rounded once like every prorated line; a credit is quantity −1 at that amount (a price is
// never negative on an invoice, EN 16931 BR-27). Its text names the old and new quantity and
// the days: "Anpassung 1 → 3 Lizenzen, 15.09.–30.09.2026 (anteilig 16 von 30 Tagen; 2 ×
// 65,20 € je Monat)". Pure.

export type AdjustedItem = TimelineItem & PricingTerms & { description: string };

export type AdjustmentLine = {
  description: string;
  quantity: '1' | '-1';
  unit: null;
  unitPriceNet: string;
  servicePeriod: { start: string; end: string };
};

const LINEAR = new Set(['flat', 'per_unit']);

/** The adjustments of `item` for the days billed that now stand otherwise (quantity-timeline.ts quantityDifferences). */
export function adjustmentLines(item: AdjustedItem, differences: readonly QuantityDifference[], anchor: string, interval: ContractInterval): AdjustmentLine[] {
  const lines: AdjustmentLine[] = [];
  for (const difference of differences) {
    const delta = new D(priceForQuantity(item, difference.now)).minus(priceForQuantity(item, difference.billed));
    if (delta.isZero()) continue;
    for (const piece of piecesByCycle(anchor, interval, difference.from, difference.to)) {
      const cycleDays = daysBetween(piece.cycle.start, piece.cycle.end);
      const days = daysBetween(piece.start, piece.end);
      const amount = proratedAmount(delta.abs(), { days, cycleDays });
      if (new D(amount).isZero()) continue;
      const period = { start: piece.start, end: piece.end };
      lines.push({
        description: adjustmentText(item, difference, period, days, cycleDays, delta, interval),
        quantity: delta.isNegative() ? '-1' : '1',
        unit: null,
        unitPriceNet: amount,
        servicePeriod: period,
      });
    }
  }
  return lines;
}

function adjustmentText(
  item: AdjustedItem,
  difference: QuantityDifference,
  period: { start: string; end: string },
  days: number,
  cycleDays: number,
  delta: DecimalValue,
  interval: ContractInterval,
): string {
  const when = formatPeriod(period);
  const head =
    difference.why === 'paused'
      ? `Gutschrift für die Pause: ${item.description}, ${when}`
      : difference.why === 'outside'
        ? `Gutschrift nach Ende der Position: ${item.description}, ${when}`
        : `Anpassung ${q(difference.billed)} → ${q(difference.now)} ${item.description}, ${when}`;
  const each = LINEAR.has(item.pricing_model)
    ? `${q(new D(difference.now).minus(difference.billed).abs().toFixed())} × ${formatMoney(item.unit_price_net)}`
    : formatMoney(delta.abs().toFixed(2));
  const share = days === cycleDays ? '' : `anteilig ${days} von ${cycleDays} Tagen; `;
  return `${head} (${share}${each} je ${INTERVAL_WORD[interval]})`;
}
