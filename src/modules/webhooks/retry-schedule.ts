import { backoffDelayMs, type ExponentialBackoff } from '../../jobs/backoff.ts';

// When a failed delivery is tried again (design §5: exponential retries for 3 days).
// 5 s after the first failure, doubling, ±20 % jitter, at most 6 h apart: about 23
// attempts in the window. The last retry is placed at the end of the window, so the
// window is used in full; a failure at or after its end fails the delivery.

export const RETRY_WINDOW_MS = 3 * 24 * 60 * 60 * 1000;
export const WEBHOOK_BACKOFF: ExponentialBackoff = { baseMs: 5_000, maxMs: 6 * 60 * 60 * 1000, jitter: 0.2 };

export type RetryPolicy = { windowMs: number; backoff: ExponentialBackoff };
export type AfterFailure = { status: 'pending'; nextAttemptAt: Date } | { status: 'failed' };

/** The delivery's state after its `attempts`-th attempt failed at `now` (transport time). */
export function afterFailure(attempts: number, firstAttemptAt: Date, now: Date, policy: RetryPolicy, random: () => number = Math.random): AfterFailure {
  const windowEnd = firstAttemptAt.getTime() + policy.windowMs;
  if (now.getTime() >= windowEnd) return { status: 'failed' };
  const next = now.getTime() + backoffDelayMs(attempts, policy.backoff, random);
  return { status: 'pending', nextAttemptAt: new Date(Math.min(next, windowEnd)) };
}
