import type { ContractPause, QuantityFrom, QuantityRun } from '../../db/schema-contracts.ts';
import { addDays } from '../../shared/dates.ts';
import { D } from '../../shared/decimal.ts';
import { pausedOn } from './contract-pauses.ts';

// An item's quantity day by day (issue 24). A quantity change takes effect on the day it
// is made; the item keeps the history ("quantities": the quantity from each such day on).
// What a day is billed at follows from the history, the contract's pauses and the item's
// and contract's ends: the "effective" quantity (0 on a paused day or outside the item's
// run). The days billed so far are kept with the quantity each was billed at
// ("billed_quantities"); where the effective quantity of a billed day differs, the next
// invoice carries the difference. Pure; dates are 'YYYY-MM-DD' strings, quantities decimals.

export type { QuantityFrom, QuantityRun };

/** Why a day has its effective quantity: the item runs, the contract is paused, or the item (or the contract) does not run then. */
export type RunReason = 'runs' | 'paused' | 'outside';
export type EffectiveRun = QuantityRun & { why: RunReason };

export type TimelineContract = { start_date: string; end_date: string | null; pauses: readonly ContractPause[] };
export type TimelineItem = { starts_on: string; ends_after: string | null; quantity: string; quantities?: readonly QuantityFrom[] | null };

/** Equal as decimals ("3" and "3.0" are one quantity). */
export const sameQuantity = (a: string, b: string) => a === b || new D(a).equals(b);

/** The item's quantities by day: stored, or its one quantity since it started. */
export function quantityHistory(item: TimelineItem): readonly QuantityFrom[] {
  return item.quantities && item.quantities.length > 0 ? item.quantities : [{ from: item.starts_on, quantity: item.quantity }];
}

/** The quantity on `day` by the history (before its first entry: the first quantity). */
export function quantityOn(history: readonly QuantityFrom[], day: string): string {
  let quantity = history[0]!.quantity;
  for (const entry of history) {
    if (entry.from > day) break;
    quantity = entry.quantity;
  }
  return quantity;
}

/**
 * The history after the quantity was set to `quantity` on `day` (the company's today): it
 * applies from that day on. A change on the same day replaces the one before (set back to
 * the quantity before that day, it is no change at all); before the item starts it simply
 * is the item's quantity.
 */
export function withQuantityChange(history: readonly QuantityFrom[], startsOn: string, day: string, quantity: string): QuantityFrom[] {
  const before = history.filter((entry) => entry.from < day);
  if (day <= startsOn || before.length === 0) return [{ from: startsOn, quantity }];
  return sameQuantity(before.at(-1)!.quantity, quantity) ? before : [...before, { from: day, quantity }];
}

/** [from, to] cut where the history changes quantity. */
export function historyRuns(history: readonly QuantityFrom[], from: string, to: string): QuantityRun[] {
  const runs: QuantityRun[] = [];
  let start = from;
  let quantity = quantityOn(history, from);
  for (const entry of history) {
    if (entry.from <= from) continue;
    if (entry.from > to) break;
    runs.push({ from: start, to: addDays(entry.from, -1), quantity });
    start = entry.from;
    quantity = entry.quantity;
  }
  runs.push({ from: start, to, quantity });
  return runs;
}

/** The effective quantity of each day from `from` to `to`, as runs (adjacent equal ones joined). */
export function effectiveRuns(contract: TimelineContract, item: TimelineItem, from: string, to: string): EffectiveRun[] {
  const history = quantityHistory(item);
  const cuts = new Set<string>();
  const cut = (day: string) => {
    if (day > from && day <= to) cuts.add(day);
  };
  for (const entry of history) cut(entry.from);
  for (const pause of contract.pauses) {
    cut(pause.from);
    if (pause.until !== null) cut(addDays(pause.until, 1));
  }
  cut(item.starts_on);
  cut(contract.start_date);
  if (item.ends_after !== null) cut(addDays(item.ends_after, 1));
  if (contract.end_date !== null) cut(addDays(contract.end_date, 1));
  const starts = [from, ...[...cuts].sort()];
  const runs: EffectiveRun[] = [];
  starts.forEach((start, i) => {
    const end = i + 1 < starts.length ? addDays(starts[i + 1]!, -1) : to;
    const state = stateOn(contract, item, history, start);
    const previous = runs.at(-1);
    if (previous && previous.why === state.why && sameQuantity(previous.quantity, state.quantity)) previous.to = end;
    else runs.push({ from: start, to: end, ...state });
  });
  return runs;
}

function stateOn(contract: TimelineContract, item: TimelineItem, history: readonly QuantityFrom[], day: string): { quantity: string; why: RunReason } {
  const outside =
    day < item.starts_on ||
    day < contract.start_date ||
    (item.ends_after !== null && day > item.ends_after) ||
    (contract.end_date !== null && day > contract.end_date);
  if (outside) return { quantity: '0', why: 'outside' };
  if (pausedOn(contract.pauses, day)) return { quantity: '0', why: 'paused' };
  return { quantity: quantityOn(history, day), why: 'runs' };
}

/** Runs as stored: adjacent days at one quantity joined, the reasons dropped. */
export function compressRuns(runs: readonly QuantityRun[]): QuantityRun[] {
  const out: QuantityRun[] = [];
  for (const run of runs) {
    const previous = out.at(-1);
    if (previous && sameQuantity(previous.quantity, run.quantity) && addDays(previous.to, 1) === run.from) previous.to = run.to;
    else out.push({ from: run.from, to: run.to, quantity: run.quantity });
  }
  return out;
}

/** Days billed at one quantity that now stand at another. */
export type QuantityDifference = { from: string; to: string; billed: string; now: string; why: RunReason };

/** Where the days billed (`billed`) now stand at another effective quantity, in day order, adjacent equal differences joined. */
export function quantityDifferences(contract: TimelineContract, item: TimelineItem, billed: readonly QuantityRun[]): QuantityDifference[] {
  const differences: QuantityDifference[] = [];
  for (const run of billed) {
    for (const now of effectiveRuns(contract, item, run.from, run.to)) {
      if (sameQuantity(run.quantity, now.quantity)) continue;
      const previous = differences.at(-1);
      if (
        previous &&
        addDays(previous.to, 1) === now.from &&
        previous.why === now.why &&
        sameQuantity(previous.billed, run.quantity) &&
        sameQuantity(previous.now, now.quantity)
      )
        previous.to = now.to;
      else differences.push({ from: now.from, to: now.to, billed: run.quantity, now: now.quantity, why: now.why });
    }
  }
  return differences;
}

/** The first day an item can be billed: its start, not before the contract's. */
export const firstDayOf = (contract: Pick<TimelineContract, 'start_date'>, item: Pick<TimelineItem, 'starts_on'>) =>
  item.starts_on > contract.start_date ? item.starts_on : contract.start_date;
