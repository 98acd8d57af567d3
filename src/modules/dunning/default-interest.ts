import { D } from '../../shared/decimal.ts';
import { centsNumber } from '../../shared/money.ts';
import { BASE_RATES, type BaseRate, baseRatePeriods, type RatePeriod } from './base-rates.ts';

// Default interest (Verzugszinsen, § 288 BGB): the base rate (§ 247 BGB) plus 5 percentage
// points when a consumer is the debtor (Abs. 1), plus 9 points otherwise (Abs. 2), on the
// open amount, act/365 (days counted exactly, the year always 365 days). A period over a
// 1 January or 1 July is split where the base rate changes; each part is rounded half up
// to cents and the total is their sum, so the amounts printed on the notice add up.

export const MARGIN_CONSUMER = '5';
export const MARGIN_BUSINESS = '9';

export type InterestPeriod = RatePeriod & { rate: string; cents: number };
export type DefaultInterest = { periods: InterestPeriod[]; cents: number };

/** Interest on `openCents` for the days `firstDay` … `lastDay` (both included). */
export function defaultInterest(
  input: { openCents: number; firstDay: string; lastDay: string; consumer: boolean },
  table: readonly BaseRate[] = BASE_RATES,
): DefaultInterest {
  const margin = input.consumer ? MARGIN_CONSUMER : MARGIN_BUSINESS;
  const periods = baseRatePeriods(input.firstDay, input.lastDay, table).map((period) => {
    const rate = new D(period.baseRate).plus(margin);
    const cents = centsNumber(new D(input.openCents).times(rate).dividedBy(100).times(period.days).dividedBy(365).toDecimalPlaces(0, D.ROUND_HALF_UP));
    return { ...period, rate: rate.toFixed(2), cents };
  });
  return { periods, cents: periods.reduce((sum, period) => sum + period.cents, 0) };
}
