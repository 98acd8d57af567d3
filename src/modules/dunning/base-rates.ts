import { addDays } from '../../shared/dates.ts';
import { daysFrom } from './days.ts';

// The Basiszinssatz of § 247 BGB, percent per year, each valid from its date until the
// next entry. It changes on 1 January and 1 July; the Deutsche Bundesbank publishes the
// new value in the Bundesanzeiger a few days before. To add a half-year, append one line
// `{ from: 'YYYY-01-01' | 'YYYY-07-01', rate: 'n.nn' }` (also when the rate is unchanged,
// so the table says it was checked) and extend the table test in test/dunning.
// After the last entry the last rate applies.

export type BaseRate = { from: string; rate: string };

export const BASE_RATES: readonly BaseRate[] = [
  { from: '2023-01-01', rate: '1.62' },
  { from: '2023-07-01', rate: '3.12' },
  { from: '2024-01-01', rate: '3.62' },
  { from: '2024-07-01', rate: '3.37' },
  { from: '2025-01-01', rate: '2.27' },
  { from: '2025-07-01', rate: '1.27' },
  { from: '2026-01-01', rate: '1.27' },
];

export type RatePeriod = { from: string; to: string; days: number; baseRate: string };

/**
 * Splits the days `first` … `last` (both included) where the base rate changes. Empty
 * when last is before first. Throws for a day before the table starts.
 */
export function baseRatePeriods(first: string, last: string, table: readonly BaseRate[] = BASE_RATES): RatePeriod[] {
  if (last < first) return [];
  const start = table[0];
  if (!start || first < start.from) throw new RangeError(`no Basiszinssatz is known before ${start?.from ?? 'any date'} (asked for ${first})`);
  const periods: RatePeriod[] = [];
  for (let i = 0; i < table.length; i++) {
    const entry = table[i]!;
    const next = table[i + 1];
    const entryLast = next ? addDays(next.from, -1) : last;
    const from = first > entry.from ? first : entry.from;
    const to = last < entryLast ? last : entryLast;
    if (from > to) continue;
    periods.push({ from, to, days: daysFrom(from, to) + 1, baseRate: entry.rate });
  }
  return periods;
}
