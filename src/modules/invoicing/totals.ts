import { D } from '../../shared/decimal.ts';

// Line arithmetic of design §4: line net = round half up(quantity × unit price, 2); tax per
// rate = round half up(sum of that rate's line nets × rate / 100, 2); totals are sums.
// Amounts are integer cents here; a storno uses the same numbers with negative signs.

export type PricedLine = { quantity: string; unitPriceNet: string; vatRate: 0 | 7 | 19 };

export function lineNetCents(line: PricedLine): number {
  return new D(line.quantity).times(line.unitPriceNet).toDecimalPlaces(2, D.ROUND_HALF_UP).times(100).toNumber();
}

export type RateTotals = { rate: 0 | 7 | 19; netCents: number; taxCents: number };
export type Totals = { netCents: number; taxCents: number; grossCents: number; perRate: RateTotals[] };

/** Totals from line nets (in cents) per VAT rate; rates in descending order. */
export function invoiceTotals(lines: { vatRate: 0 | 7 | 19; netCents: number }[]): Totals {
  const byRate = new Map<0 | 7 | 19, number>();
  for (const line of lines) byRate.set(line.vatRate, (byRate.get(line.vatRate) ?? 0) + line.netCents);
  const perRate = [...byRate.entries()]
    .sort(([a], [b]) => b - a)
    .map(([rate, netCents]) => ({
      rate,
      netCents,
      taxCents: new D(netCents).times(rate).dividedBy(100).toDecimalPlaces(0, D.ROUND_HALF_UP).toNumber(),
    }));
  const netCents = perRate.reduce((sum, r) => sum + r.netCents, 0);
  const taxCents = perRate.reduce((sum, r) => sum + r.taxCents, 0);
  return { netCents, taxCents, grossCents: netCents + taxCents, perRate };
}

/** Cents as the API's decimal string with exactly two decimals ("-12.30"). */
export function centsToDecimal(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
