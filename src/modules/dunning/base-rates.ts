import { addDays } from '../../shared/dates.ts';
import { daysFrom } from './days.ts';

// The Basiszinssatz of § 247 BGB, percent per year, each valid from its date until the
// next entry. It changes on 1 January and 1 July; the Deutsche Bundesbank publishes the
// new value in the Bundesanzeiger a few days before. To add a half-year, append one line
// `{ from: 'YYYY-01-01' | 'YYYY-07-01', rate: 'n.nn' }` (also when the rate is unchanged,
// so the table says it was checked) and extend the table test in test/dunning.
// After the last entry the last rate applies; a notice that relies on that is made all the
// same, and the dunning run warns (create-notices.ts). Between releases an operator adds
// a half-year in the data folder's base-rates.json (base-rate-file.ts).

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

/** The first day of the half-year that holds `date`: 1 January or 1 July. */
export function halfYearOf(date: string): string {
  return `${date.slice(0, 4)}-${date.slice(5, 7) < '07' ? '01' : '07'}-01`;
}

/** The half-year after the one starting on `from` (a 1 January or 1 July). */
export function nextHalfYear(from: string): string {
  return from.slice(5, 7) === '01' ? `${from.slice(0, 4)}-07-01` : `${Number(from.slice(0, 4)) + 1}-01-01`;
}

/**
 * The half-years up to and including the one of `date` that the table has no entry for:
 * in them the last rate is carried forward, although the Bundesbank has published a new
 * one. Empty when the table reaches `date`'s half-year.
 */
export function missingHalfYears(date: string, table: readonly BaseRate[] = BASE_RATES): string[] {
  const last = table.at(-1);
  if (!last) return [];
  const missing: string[] = [];
  for (let from = nextHalfYear(last.from); from <= date; from = nextHalfYear(from)) missing.push(from);
  return missing;
}

/** The table dunning runs use, and the file an operator adds half-years to (null: not set up by a command). */
export type BaseRateSetup = { table: readonly BaseRate[]; file: string | null };

let active: BaseRateSetup = { table: BASE_RATES, file: null };

/** Installs the table for this process's dunning runs (the built-in one merged with the operator's file, at start). */
export function useBaseRates(setup: BaseRateSetup): void {
  active = setup;
}

export function activeBaseRates(): BaseRateSetup {
  return active;
}

/**
 * Days at one base rate: `baseRateFrom` is the table entry's date (the rate holds "seit"
 * then); `carriedForwardFrom` is the first half-year the table has no rate for when some of
 * these days fall in it (the last rate carried forward from then on), else null.
 */
export type RatePeriod = { from: string; to: string; days: number; baseRate: string; baseRateFrom: string; carriedForwardFrom: string | null };

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
    const beyond = next ? null : nextHalfYear(entry.from);
    const carriedForwardFrom = beyond !== null && to >= beyond ? beyond : null;
    periods.push({ from, to, days: daysFrom(from, to) + 1, baseRate: entry.rate, baseRateFrom: entry.from, carriedForwardFrom });
  }
  return periods;
}

/**
 * The app's warning (dashboard, dunning page): the half-year of `today` (the company's
 * date) has no rate in the table, so notices carry the last one forward. Null when it has.
 */
export function currentRateMissing(today: string, table: readonly BaseRate[] = activeBaseRates().table): { halfYear: string; last: BaseRate } | null {
  const last = table.at(-1);
  if (!last || halfYearOf(today) <= last.from) return null;
  return { halfYear: halfYearOf(today), last };
}
