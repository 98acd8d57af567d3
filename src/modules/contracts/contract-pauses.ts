import type { ContractPause, ContractStatus } from '../../db/schema-contracts.ts';
import { addDays } from '../../shared/dates.ts';

// The pauses of a contract (contracts.pauses): pausing opens one on the day of the change,
// resuming closes it on the day before. Pure.

/** Whether a contract is inside a pause on `date`. */
export function pausedOn(pauses: readonly ContractPause[], date: string): boolean {
  return pauses.some((pause) => pause.from <= date && (pause.until === null || pause.until >= date));
}

/** The pauses that hold a day of `days`, in their order. */
export function pausesHolding(pauses: readonly ContractPause[], days: readonly string[]): ContractPause[] {
  return pauses.filter((pause) => days.some((day) => pause.from <= day && (pause.until === null || pause.until >= day)));
}

/**
 * The pauses after a status change on `today`: pausing opens one, resuming (back to
 * active) closes it on the day before (a pause begun and ended the same day is dropped).
 * A paused contract that is cancelled stays paused until it ends.
 */
export function pausesAfter(pauses: readonly ContractPause[], from: ContractStatus | undefined, to: ContractStatus, today: string): ContractPause[] {
  const open = pauses.at(-1)?.until === null ? pauses.at(-1) : undefined;
  if (to === 'paused' && from !== 'paused' && !open) return [...pauses, { from: today, until: null }];
  if (to === 'active' && open) {
    const until = addDays(today, -1);
    return until < open.from ? pauses.slice(0, -1) : [...pauses.slice(0, -1), { from: open.from, until }];
  }
  return [...pauses];
}
