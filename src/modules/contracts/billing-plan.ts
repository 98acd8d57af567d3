import type { Tier } from '../../db/schema.ts';
import type { BillingTiming, ContractInterval, ContractPause } from '../../db/schema-contracts.ts';
import { addDays } from '../../shared/dates.ts';
import { exactLineNet } from '../invoicing/index.ts';
import { priceForQuantity } from '../products/pricing.ts';
import { adjustmentLines } from './adjustment-lines.ts';
import { cycleAt, cycleContaining, daysBetween, type Proration, piecesByCycle } from './calendar.ts';
import { pausedOn } from './contract-pauses.ts';
import { type PricedLine, quantityLines, usageLines } from './priced-lines.ts';
import {
  compressRuns,
  effectiveRuns,
  firstDayOf,
  historyRuns,
  type QuantityFrom,
  type QuantityRun,
  quantityDifferences,
  quantityHistory,
} from './quantity-timeline.ts';

// What one billing date of a contract bills (design §6), as a pure function of the
// contract, its items and the usage summed over the open period:
// - the arrears items for the period since usage_open_from up to the day before the billing
//   date (the cycle that ended; at the contract's end, up to its end date): flat ones by
//   quantity, prorated by the days they were active; usage-priced ones by the usage summed;
// - the advance items for the cycle that begins on the billing date, and any of their days
//   before it not billed yet (an item added to a running contract, a contract resumed);
// - days inside a pause are not billed; a billing date inside a pause bills no advance;
// - an item's quantity is the one of each day (quantity-timeline.ts): a period with a change
//   is billed as one line per quantity, days at each;
// - days billed before whose quantity now stands otherwise (a change after they were billed
//   in advance, a pause, an item ended early) as adjustment lines (adjustment-lines.ts),
//   credits as quantity −1.
// Each line carries its own service period. Zero amounts are left out. What the invoice can
// carry of the credits is decided after the plan (contract-credit.ts).

export type PlanContract = {
  start_date: string;
  billing_starts_on: string | null;
  end_date: string | null;
  billing_interval: ContractInterval;
  usage_open_from: string | null;
  pauses: readonly ContractPause[];
};

export type PlanItem = {
  ref: string;
  position: number;
  description: string;
  quantity: string;
  unit: string | null;
  billing_timing: BillingTiming;
  unit_price_net: string;
  vat_rate: 0 | 7 | 19;
  pricing_model: 'flat' | 'per_unit' | 'package' | 'graduated' | 'volume' | 'quota';
  included_quantity: string | null;
  overage_price: string | null;
  tiers: readonly Tier[] | null;
  starts_on: string;
  ends_after: string | null;
  billed_until: string | null;
  /** The quantity from each day on; null: `quantity` since `starts_on`. */
  quantities?: readonly QuantityFrom[] | null;
  /** The days billed by quantity and at which; null: as the item stands. */
  billed_quantities?: readonly QuantityRun[] | null;
};

export type PlannedLine = PricedLine & { itemRef: string; vatRate: 0 | 7 | 19; servicePeriod: { start: string; end: string } };

export type BillingPlan = {
  billingDate: string;
  /** The billing after the contract's end: arrears only, the contract ends with it. */
  final: boolean;
  /** The cycle this billing belongs to (the last one, up to the end, for the final billing). */
  cycle: { start: string; end: string };
  /** The billing date lies inside a pause. */
  paused: boolean;
  /** In order of their periods, then of the items. */
  lines: PlannedLine[];
  /** The new last day billed in advance, per advance item that billed something. */
  billedUntil: Map<string, string>;
  /** The days billed by quantity after this billing and at which quantity, per item whose record changes. */
  billed: Map<string, QuantityRun[]>;
  usageOpenFrom: string;
  /** The next billing date; null after the final billing. */
  next: string | null;
};

/** The day the billing cycles count from: `billing_starts_on`, else `start_date`. */
export const anchorOf = (contract: Pick<PlanContract, 'billing_starts_on' | 'start_date'>) => contract.billing_starts_on ?? contract.start_date;

/**
 * The arrears period a billing date bills: from `usage_open_from` (before the first
 * billing: the start) to the day before the billing date, or to the end date after it.
 */
export function arrearsPeriod(contract: Pick<PlanContract, 'usage_open_from' | 'start_date' | 'end_date'>, billingDate: string): { from: string; to: string } {
  const final = contract.end_date !== null && billingDate > contract.end_date;
  return { from: contract.usage_open_from ?? contract.start_date, to: final ? contract.end_date! : addDays(billingDate, -1) };
}
const later = (a: string, b: string) => (a > b ? a : b);
const earlier = (a: string, b: string | null) => (b !== null && b < a ? b : a);

export { pausedOn };

/** Days from `start` to `end` (inclusive) inside a pause. */
function pausedDays(pauses: readonly ContractPause[], start: string, end: string): number {
  let days = 0;
  for (const pause of pauses) {
    const from = later(pause.from, start);
    const until = earlier(end, pause.until);
    if (from <= until) days += daysBetween(from, until);
  }
  return days;
}

/** [start, end] without the paused days at either end (the period a line names); at least one day is not paused. */
function withoutPausedEnds(pauses: readonly ContractPause[], start: string, end: string): { start: string; end: string } {
  let first = start;
  let last = end;
  while (first < last && pausedOn(pauses, first)) first = addDays(first, 1);
  while (last > first && pausedOn(pauses, last)) last = addDays(last, -1);
  return { start: first, end: last };
}

/** Whether a line's net (quantity × unit price, rounded to cents) is zero. */
const isZero = (line: PricedLine) => exactLineNet(line) === 0n;

const USAGE_PRICED = new Set(['per_unit', 'package', 'graduated', 'volume', 'quota']);

/** Whether an item bills the usage reported for it (usage-priced and in arrears) rather than its quantity. */
export function billsUsage(item: Pick<PlanItem, 'billing_timing' | 'pricing_model'>): boolean {
  return item.billing_timing === 'arrears' && USAGE_PRICED.has(item.pricing_model);
}

/** The billing of `contract` on `billingDate` (its next_billing_date). `usage`: per usage item, the sum over the arrears period. */
export function planBilling(contract: PlanContract, items: readonly PlanItem[], usage: ReadonlyMap<string, string>, billingDate: string): BillingPlan {
  const anchor = anchorOf(contract);
  const interval = contract.billing_interval;
  const end = contract.end_date;
  const final = end !== null && billingDate > end;
  const current = final ? null : cycleContaining(anchor, interval, billingDate);
  const paused = pausedOn(contract.pauses, billingDate);
  const lines: (PlannedLine & { position: number })[] = [];
  const billedUntil = new Map<string, string>();
  const billed = new Map<string, QuantityRun[]>();

  const activeDays = (start: string, stop: string) => daysBetween(start, stop) - pausedDays(contract.pauses, start, stop);
  const push = (item: PlanItem, line: PricedLine, servicePeriod: { start: string; end: string }) =>
    lines.push({ ...line, itemRef: item.ref, vatRate: item.vat_rate, servicePeriod, position: item.position });
  /** Quantity lines of an item over [from, to], piece by cycle and by quantity, prorated by the days not paused. */
  const byQuantity = (item: PlanItem, from: string, to: string) => {
    const history = quantityHistory(item);
    for (const piece of piecesByCycle(anchor, interval, from, to)) {
      const cycleDays = daysBetween(piece.cycle.start, piece.cycle.end);
      for (const run of historyRuns(history, piece.start, piece.end)) {
        const days = activeDays(run.from, run.to);
        if (days === 0) continue;
        const proration: Proration = { start: run.from, end: run.to, days, cycleDays };
        const servicePeriod = withoutPausedEnds(contract.pauses, run.from, run.to);
        const priced = { ...item, quantity: run.quantity };
        for (const line of quantityLines(priced, priceForQuantity(item, run.quantity), proration, interval)) if (!isZero(line)) push(item, line, servicePeriod);
      }
    }
  };
  /**
   * The days billed before that now stand at another quantity (adjustment lines), and the
   * record of the days billed after this billing: those before and [from, to] billed now.
   */
  const settle = (item: PlanItem, to: string | null) => {
    const stored = item.billed_quantities?.length ? item.billed_quantities : null;
    const differences = stored ? quantityDifferences(contract, item, stored) : [];
    for (const line of adjustmentLines(item, differences, anchor, interval)) push(item, line, line.servicePeriod);
    const last = stored ? stored[stored.length - 1]!.to : null;
    const grows = to !== null && (last === null || to > last);
    if (!grows && differences.length === 0) return;
    // The days recorded stand as they are now (unchanged when nothing differs); the new days
    // follow. Without a record the days billed before stand as the item stands (rows from
    // before issue 24), so the record starts at the item's first day.
    const before = !stored ? [] : differences.length === 0 ? stored : effectiveRuns(contract, item, stored[0]!.from, last!);
    const after = grows ? effectiveRuns(contract, item, last !== null ? addDays(last, 1) : firstDayOf(contract, item), to!) : [];
    billed.set(item.ref, compressRuns([...before, ...after]));
  };

  // Arrears: from usage_open_from to the day before the billing date (or the contract's end).
  const { from: arrearsFrom, to: arrearsTo } = arrearsPeriod(contract, billingDate);
  for (const item of items) {
    if (item.billing_timing !== 'arrears') continue;
    const from = later(arrearsFrom, item.starts_on);
    const to = earlier(arrearsTo, item.ends_after);
    if (!billsUsage(item)) {
      if (from <= to) byQuantity(item, from, to);
      // The record covers the whole arrears period, also days after the item's end (at 0):
      // an end moved later then finds them and bills them as an adjustment.
      settle(item, from <= arrearsTo ? arrearsTo : null);
      continue;
    }
    if (from > to) continue;
    // One period, priced as a whole; a quota's base fee prorated when the item ran only part of a cycle.
    const cycle = cycleContaining(anchor, interval, from);
    const fullCycle = daysBetween(cycle.start, cycle.end);
    const days = activeDays(from, to);
    const proration = days < fullCycle ? { start: from, end: to, days, cycleDays: fullCycle } : null;
    const priced = usageLines(item, usage.get(item.ref) ?? '0', proration, interval);
    // An item with nothing to pay (no usage, a free tier) puts no lines on the invoice.
    if (priced.every((line) => isZero(line))) continue;
    for (const line of priced) push(item, line, { start: from, end: to });
  }

  // Advance: the unbilled days up to the end of the cycle beginning now (none while paused).
  const advanceTo = final ? end : paused ? addDays(billingDate, -1) : current!.end;
  for (const item of items) {
    if (item.billing_timing !== 'advance') continue;
    const from = later(item.billed_until ? addDays(item.billed_until, 1) : contract.start_date, item.starts_on);
    const to = earlier(earlier(advanceTo, end), item.ends_after);
    if (from <= to) {
      byQuantity(item, from, to);
      billedUntil.set(item.ref, to);
    }
    settle(item, from <= to ? to : null);
  }

  lines.sort((a, b) => (a.servicePeriod.start < b.servicePeriod.start ? -1 : a.servicePeriod.start > b.servicePeriod.start ? 1 : a.position - b.position));
  const cycle = billingCycle(contract, billingDate);
  return {
    billingDate,
    final,
    cycle,
    paused,
    lines: lines.map(({ position: _position, ...line }) => line),
    billedUntil,
    billed,
    usageOpenFrom: later(contract.usage_open_from ?? contract.start_date, addDays(arrearsTo, 1)),
    next: nextBillingDate(contract, billingDate),
  };
}

/**
 * The cycle a billing date belongs to: the one it begins; for the final billing after the
 * contract's end, the last one up to the end (design §6).
 */
export function billingCycle(
  contract: Pick<PlanContract, 'start_date' | 'billing_starts_on' | 'end_date' | 'billing_interval'>,
  billingDate: string,
): { start: string; end: string } {
  const anchor = anchorOf(contract);
  const end = contract.end_date;
  if (end !== null && billingDate > end) return { start: later(cycleContaining(anchor, contract.billing_interval, end).start, contract.start_date), end };
  const { start, end: last } = cycleContaining(anchor, contract.billing_interval, billingDate);
  return { start, end: last };
}

/** The first billing date after `lastBillingDate` (none yet: the anchor), no later than the day after the contract's end. */
export function nextBillingDate(
  contract: Pick<PlanContract, 'start_date' | 'billing_starts_on' | 'end_date' | 'billing_interval'>,
  lastBillingDate: string | null,
): string | null {
  const anchor = anchorOf(contract);
  const end = contract.end_date;
  if (lastBillingDate !== null && end !== null && lastBillingDate > end) return null;
  const scheduled =
    lastBillingDate === null
      ? anchor
      : cycleAt(anchor, contract.billing_interval, cycleContaining(anchor, contract.billing_interval, lastBillingDate).index + 1).start;
  return end !== null && addDays(end, 1) < scheduled ? addDays(end, 1) : scheduled;
}
