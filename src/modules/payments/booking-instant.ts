// paid_at is an instant (UTC in the API), the bank gives a booking date. Kontor takes the
// start of that day in the company's time zone: the invoice counts as paid from the
// first moment of the day the money was booked, and converting paid_at back into the
// company's time zone gives the booking date again.

// Building an Intl.DateTimeFormat costs far more than using one: one per time zone.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

function offsetMinutes(instant: Date, timeZone: string): number {
  const parts = formatter(timeZone).formatToParts(instant);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const local = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
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
