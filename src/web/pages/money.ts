import { calendarDate } from '../../shared/clock.ts';
import { formatDate, formatMoney } from '../../shared/german-format.ts';
import { formatCents } from '../../shared/money.ts';

// Amounts and dates in German format on every page, in either language (the books are German).

export const euro = (cents: number | bigint | string): string => formatMoney(formatCents(typeof cents === 'string' ? BigInt(cents) : cents));
export const date = (iso: string | null): string => (iso ? formatDate(iso) : '–');
export const today = (now: Date, timezone: string): string => calendarDate(now, timezone);

/** Instants (an audit row, an event) as German date and time in the company's time zone. */
export const dateTimeFormat = (timeZone: string, timeStyle: 'short' | 'medium' = 'short') =>
  new Intl.DateTimeFormat('de-DE', { dateStyle: 'medium', timeStyle, timeZone });
