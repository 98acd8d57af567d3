import { addDays } from '../../shared/dates.ts';
import { D, type DecimalValue } from '../../shared/decimal.ts';

// The billing calendar of a contract (design §6): cycles follow the anchor
// (`billing_starts_on`, else `start_date`) in the contract's interval. Each cycle start is
// computed from the anchor itself, never from the previous start, and a day the month does
// not have is clamped to its last day: an anchor on 31 January gives 28/29 February, then
// 31 March again (no drift to the 28th). Pure; dates are 'YYYY-MM-DD' strings.

export type BillingInterval = 'month' | 'quarter' | 'year';

const MONTHS: Record<BillingInterval, number> = { month: 1, quarter: 3, year: 12 };

export type Cycle = {
  /** 0 for the cycle that starts on the anchor. */
  index: number;
  /** First day of the cycle. */
  start: string;
  /** Last day of the cycle (the day before the next cycle starts). */
  end: string;
};

const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** The anchor moved by `months` calendar months, its day clamped to the target month's length. */
export function addMonthsClamped(anchor: string, months: number): string {
  const [year, month, day] = anchor.split('-').map(Number) as [number, number, number];
  const total = year * 12 + (month - 1) + months;
  const targetYear = Math.floor(total / 12);
  const targetMonth = (((total % 12) + 12) % 12) + 1;
  const targetDay = Math.min(day, daysInMonth(targetYear, targetMonth));
  return `${String(targetYear).padStart(4, '0')}-${String(targetMonth).padStart(2, '0')}-${String(targetDay).padStart(2, '0')}`;
}

/** Start of cycle `index` (negative: before the anchor). */
export function cycleStart(anchor: string, interval: BillingInterval, index: number): string {
  return addMonthsClamped(anchor, index * MONTHS[interval]);
}

export function cycleAt(anchor: string, interval: BillingInterval, index: number): Cycle {
  return { index, start: cycleStart(anchor, interval, index), end: addDays(cycleStart(anchor, interval, index + 1), -1) };
}

/** The cycle that contains `date` (a date before the anchor lies in a negative cycle). */
export function cycleContaining(anchor: string, interval: BillingInterval, date: string): Cycle {
  const [ay, am] = anchor.split('-').map(Number) as [number, number];
  const [dy, dm] = date.split('-').map(Number) as [number, number];
  // A first guess from the months between, corrected by at most a step either way.
  let index = Math.floor((dy * 12 + dm - (ay * 12 + am)) / MONTHS[interval]);
  while (cycleStart(anchor, interval, index) > date) index -= 1;
  while (cycleStart(anchor, interval, index + 1) <= date) index += 1;
  return cycleAt(anchor, interval, index);
}

/** [from, to] cut at cycle boundaries, each piece with its cycle. */
export function piecesByCycle(anchor: string, interval: BillingInterval, from: string, to: string): { cycle: Cycle; start: string; end: string }[] {
  const pieces = [];
  for (let day = from; day <= to; ) {
    const cycle = cycleContaining(anchor, interval, day);
    const end = cycle.end < to ? cycle.end : to;
    pieces.push({ cycle, start: day, end });
    day = addDays(end, 1);
  }
  return pieces;
}

/** Days from `start` to `end`, both included. */
export function daysBetween(start: string, end: string): number {
  return Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000) + 1;
}

export type Proration = {
  /** The part of the cycle that is billed (clipped to the cycle). */
  start: string;
  end: string;
  days: number;
  cycleDays: number;
};

/**
 * What part of `cycle` an item (or contract) active from `activeFrom` to `activeUntil`
 * (inclusive, null: open) is billed for, prorated by days:
 *   factor = days active inside the cycle / days of the cycle.
 * A cycle of 31 days with 10 active days bills 10/31 of the interval's price. Null when
 * the item is not active in the cycle at all.
 */
export function prorate(cycle: Pick<Cycle, 'start' | 'end'>, activeFrom: string, activeUntil: string | null): Proration | null {
  const start = activeFrom > cycle.start ? activeFrom : cycle.start;
  const end = activeUntil !== null && activeUntil < cycle.end ? activeUntil : cycle.end;
  if (start > end) return null;
  const days = daysBetween(start, end);
  const cycleDays = daysBetween(cycle.start, cycle.end);
  return { start, end, days, cycleDays };
}

/**
 * The prorated net of a full-cycle amount: amount × days / cycle days, rounded half up to
 * cents once, at the end. A whole cycle returns the amount unchanged.
 */
export function proratedAmount(amount: string | DecimalValue, proration: Pick<Proration, 'days' | 'cycleDays'>): string {
  const full = new D(amount);
  if (proration.days === proration.cycleDays) return full.toFixed(2);
  return full.times(proration.days).dividedBy(proration.cycleDays).toDecimalPlaces(2, D.ROUND_HALF_UP).toFixed(2);
}
