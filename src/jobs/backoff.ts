// How long a failed job waits before its next attempt. The default doubles from 10 s
// and stops growing at 6 h; ±20 % jitter keeps jobs that failed together (a mail server
// down) from all coming back in the same second.

export type ExponentialBackoff = { baseMs?: number; maxMs?: number; jitter?: number };
/** Exponential settings, or a function from the attempts made so far to the delay in ms. */
export type Backoff = ExponentialBackoff | ((attempts: number) => number);

export const DEFAULT_BACKOFF = { baseMs: 10_000, maxMs: 6 * 60 * 60 * 1000, jitter: 0.2 } as const;

/** Delay before the next attempt after `attempts` attempts (1 after the first failure). */
export function backoffDelayMs(attempts: number, backoff: Backoff = {}, random: () => number = Math.random): number {
  if (typeof backoff === 'function') return Math.max(0, backoff(attempts));
  const baseMs = backoff.baseMs ?? DEFAULT_BACKOFF.baseMs;
  const maxMs = backoff.maxMs ?? DEFAULT_BACKOFF.maxMs;
  const jitter = backoff.jitter ?? DEFAULT_BACKOFF.jitter;
  const exponential = baseMs * 2 ** (Math.max(1, attempts) - 1);
  const jittered = exponential * (1 - jitter + 2 * jitter * random());
  return Math.round(Math.min(maxMs, jittered));
}
