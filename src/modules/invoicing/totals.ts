import { centsNumber, exactCents, formatCents } from '../../shared/money.ts';

// Line arithmetic of design §4: line net = round half up(quantity × unit price, 2); tax per
// rate = round half up(sum of that rate's line nets × rate / 100, 2); totals are sums.
// Amounts are integer cents; a storno uses the same numbers with negative signs (half up
// rounds away from zero, so a storno's amounts are exactly the original's negated).
//
// The exact forms (exactLineNet, exactTotals) compute in decimals and bigint cents and are
// right at any size; amount-limits.ts uses them to refuse what no bank could pay. The
// number forms (lineNetCents, invoiceTotals) serve amounts within those limits and throw
// a RangeError rather than round anything that does not fit a number exactly.

export type VatRate = 0 | 7 | 19;
export type PricedLine = { quantity: string; unitPriceNet: string; vatRate: VatRate };

/** round half up(quantity × unit price, 2) in cents (ties away from zero), exact at any size. */
export function exactLineNet(line: Pick<PricedLine, 'quantity' | 'unitPriceNet'>): bigint {
  // In scaled integers, not decimal.js: this runs for every line of every request (the
  // amount limits before the operation, the line nets in it), ~10× faster in bigint.
  const quantity = scaledDecimal(line.quantity);
  const price = scaledDecimal(line.unitPriceNet);
  const product = quantity.digits * price.digits;
  const scale = quantity.scale + price.scale;
  if (scale <= 2) return product * 10n ** BigInt(2 - scale);
  const divisor = 10n ** BigInt(scale - 2);
  const magnitude = ((product < 0n ? -product : product) + divisor / 2n) / divisor;
  return product < 0n ? -magnitude : magnitude;
}

/** A decimal string ("-12.345") as its digits and the number of decimals (-12345n, 3). */
function scaledDecimal(text: string): { digits: bigint; scale: number } {
  const match = /^([+-]?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) throw new RangeError(`not a decimal: ${text}`);
  const digits = BigInt(`${match[2]}${match[3] ?? ''}`);
  return { digits: match[1] === '-' ? -digits : digits, scale: match[3]?.length ?? 0 };
}

export function lineNetCents(line: PricedLine): number {
  return centsNumber(exactLineNet(line));
}

export type ExactRateTotals = { rate: VatRate; net: bigint; tax: bigint };
export type ExactTotals = { net: bigint; tax: bigint; gross: bigint; perRate: ExactRateTotals[] };

/** round half up(net × rate / 100) in whole cents, away from zero on a tie (a storno mirrors). */
function taxOf(net: bigint, rate: VatRate): bigint {
  const hundredths = net * BigInt(rate);
  const rounded = ((hundredths < 0n ? -hundredths : hundredths) + 50n) / 100n;
  return hundredths < 0n ? -rounded : rounded;
}

/** Totals from line nets (bigint cents) per VAT rate, exact; rates in descending order. */
export function exactTotals(lines: readonly { vatRate: VatRate; net: bigint }[]): ExactTotals {
  const byRate = new Map<VatRate, bigint>();
  for (const line of lines) byRate.set(line.vatRate, (byRate.get(line.vatRate) ?? 0n) + line.net);
  const perRate = [...byRate.entries()].sort(([a], [b]) => b - a).map(([rate, net]) => ({ rate, net, tax: taxOf(net, rate) }));
  const net = perRate.reduce((sum, r) => sum + r.net, 0n);
  const tax = perRate.reduce((sum, r) => sum + r.tax, 0n);
  return { net, tax, gross: net + tax, perRate };
}

export type RateTotals = { rate: VatRate; netCents: number; taxCents: number };
export type Totals = { netCents: number; taxCents: number; grossCents: number; perRate: RateTotals[] };

/** Totals from line nets (in cents) per VAT rate; rates in descending order. */
export function invoiceTotals(lines: readonly { vatRate: VatRate; netCents: number }[]): Totals {
  const exact = exactTotals(lines.map((line) => ({ vatRate: line.vatRate, net: exactCents(line.netCents) })));
  return {
    netCents: centsNumber(exact.net),
    taxCents: centsNumber(exact.tax),
    grossCents: centsNumber(exact.gross),
    perRate: exact.perRate.map((r) => ({ rate: r.rate, netCents: centsNumber(r.net), taxCents: centsNumber(r.tax) })),
  };
}

/** Cents as the API's decimal string with exactly two decimals ("-12.30"). */
export function centsToDecimal(cents: number | bigint): string {
  return formatCents(cents);
}
