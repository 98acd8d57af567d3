// Calendar-day arithmetic on 'YYYY-MM-DD' strings, in UTC so no time zone shifts a day.

const MS_PER_DAY = 86_400_000;

/** Days from `from` to `to` (negative when `to` is earlier): 2026-01-01 → 2026-01-15 is 14. */
export function daysFrom(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / MS_PER_DAY);
}

/** The earlier of two dates. */
export function earlier(a: string, b: string): string {
  return a <= b ? a : b;
}
