import { calendarDate } from '../../shared/clock.ts';
import { isCalendarDate } from '../../shared/dates.ts';
import { formatDate, formatMoney } from '../../shared/german-format.ts';
import { formatCents } from '../../shared/money.ts';

// Amounts and dates in German format on every page, in either language (the books are German).

export const euro = (cents: number | bigint | string): string => formatMoney(formatCents(typeof cents === 'string' ? BigInt(cents) : cents));
export const date = (iso: string | null): string => (iso ? formatDate(iso) : '–');
export const today = (now: Date, timezone: string): string => calendarDate(now, timezone);

/** Instants (an audit row, an event) as German date and time in the company's time zone. */
export const dateTimeFormat = (timeZone: string, timeStyle: 'short' | 'medium' = 'short') =>
  new Intl.DateTimeFormat('de-DE', { dateStyle: 'medium', timeStyle, timeZone });

/** A typed date, German (24.11.2026, 1.2.2027) or ISO, as ISO; null when it is neither (the day itself is not checked). */
export function isoOfTyped(text: string): string | null {
  const s = text.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return s;
  const german = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(s);
  return german ? `${german[3]}-${(german[2] as string).padStart(2, '0')}-${(german[1] as string).padStart(2, '0')}` : null;
}

/** A typed date that exists in the calendar, as ISO; else null. */
export function typedDate(text: string): string | null {
  const iso = isoOfTyped(text);
  return iso && isCalendarDate(iso) ? iso : null;
}
