import { zonedParts } from '../../shared/clock.ts';

// paid_at is an instant (UTC in the API), the bank gives a booking date. Kontor takes the
// start of that day in the company's time zone: the invoice counts as paid from the
// first moment of the day the money was booked, and converting paid_at back into the
// company's time zone gives the booking date again.

function offsetMinutes(instant: Date, timeZone: string): number {
  const p = zonedParts(instant, timeZone);
  const local = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return Math.round((local - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
}

/** 00:00 of `date` (YYYY-MM-DD) in `timeZone`, as an instant. */
export function startOfDay(date: string, timeZone: string): Date {
  const midnightUtc = Date.parse(`${date}T00:00:00Z`);
  // Two passes settle the offset across a daylight-saving change on that day.
  let instant = midnightUtc - offsetMinutes(new Date(midnightUtc), timeZone) * 60_000;
  instant = midnightUtc - offsetMinutes(new Date(instant), timeZone) * 60_000;
  return new Date(instant);
}
