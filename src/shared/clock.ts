// The one clock for every "now" and "today" decision. KONTOR_NOW sets where the clock
// starts for a process; from there it runs on in real time. Transport timestamps (logs,
// webhook signatures) use the real time and do not go through here.

export type Clock = {
  now(): Date;
  /** The calendar date (YYYY-MM-DD) of `now()` in the given IANA time zone. */
  today(timeZone: string): string;
};

// Making a DateTimeFormat costs about a millisecond; one per time zone is kept.
const formats = new Map<string, Intl.DateTimeFormat>();

export function calendarDate(instant: Date, timeZone: string): string {
  let format = formats.get(timeZone);
  if (!format) {
    // en-CA formats as YYYY-MM-DD. An unknown zone throws here, before anything is kept.
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    if (formats.size >= 1000) formats.clear();
    formats.set(timeZone, format);
  }
  return format.format(instant);
}

const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock date and time of `instant` in `timeZone`, each part as zero-padded digits (hour 00–23). */
export function zonedParts(instant: Date, timeZone: string): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string> {
  let format = dateTimeFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    if (dateTimeFormats.size >= 1000) dateTimeFormats.clear();
    dateTimeFormats.set(timeZone, format);
  }
  const parts = format.formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '00';
  return { year: part('year'), month: part('month'), day: part('day'), hour: part('hour'), minute: part('minute'), second: part('second') };
}

export function createClock(start?: string | Date): Clock {
  const startAt = start === undefined ? undefined : new Date(start);
  if (startAt && Number.isNaN(startAt.getTime())) throw new Error(`KONTOR_NOW is not an ISO date-time: ${String(start)}`);
  const realStart = Date.now();
  const now = () => (startAt ? new Date(startAt.getTime() + (Date.now() - realStart)) : new Date());
  return { now, today: (timeZone) => calendarDate(now(), timeZone) };
}

/** A clock that stands still at `at` until moved: for tests and `jobs run --as-of`. */
export function fixedClock(at: string | Date): Clock & { set(at: string | Date): void } {
  let current = new Date(at);
  return {
    now: () => new Date(current),
    today: (timeZone) => calendarDate(current, timeZone),
    set: (next) => {
      current = new Date(next);
    },
  };
}
