import { AsyncLocalStorage } from 'node:async_hooks';
import { calendarDate } from '../../shared/clock.ts';
import { isCalendarDate } from '../../shared/dates.ts';
import { formatDate, formatDecimal, formatMoney } from '../../shared/german-format.ts';
import { formatCents } from '../../shared/money.ts';
import type { Lang } from '../i18n.ts';

// Amounts and dates as the page's language writes them (issue 25): German "1.234,56 €" and
// "27.11.2026", English "€1,234.56" and "27 Nov 2026" (day, month name, year: no reader
// mistakes 11/12 for 12 November). The language is the request's: index.ts runs every page
// handler inside `formatIn(request.lang, …)`, so a page calls `euro(…)` and `date(…)` without
// passing it; outside a request (a test, a job) it is German. Amounts are formatted from
// their exact decimal strings, never through a float (style.md, money).

const pageLang = new AsyncLocalStorage<Lang>();

/** Runs `work` (a page handler and all it awaits) with amounts and dates in `lang`. */
export function formatIn<T>(lang: Lang, work: () => T): T {
  return pageLang.run(lang, work);
}

/** The language amounts and dates are written in now. */
export const formatLang = (): Lang => pageLang.getStore() ?? 'de';

const MONTHS_EN = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A decimal string in the language's notation: "-1234.5" → "-1.234,50" (de) or "-1,234.50" (en). */
export function decimal(value: string, minDecimals = 2): string {
  const german = formatDecimal(value, minDecimals);
  if (formatLang() === 'de') return german;
  return german.replace(/[.,]/g, (c) => (c === '.' ? ',' : '.'));
}

/** An amount given as a decimal string: "1.234,56 €" (de) or "€1,234.56" (en, the sign before the €). */
export function money(amount: string): string {
  if (formatLang() === 'de') return formatMoney(amount);
  const text = decimal(amount, 2);
  return text.startsWith('-') ? `-€${text.slice(1)}` : `€${text}`;
}

/**
 * A typed number as a decimal string, or null. German pages read "1.234,56", "1234,56" and
 * also "1234.56" (a dot before one, two or more than three digits cannot group thousands);
 * English pages read "1,234.56" and "1234.56", and "1234,56" as well. "12" → "12".
 */
export function typedDecimal(text: string): string | null {
  const s = text.replace(/[\s\u00a0€]/g, '');
  const [group, point] = formatLang() === 'en' ? [',', '.'] : ['.', ','];
  const esc = (c: string) => `\\${c}`;
  const strict = new RegExp(`^(-?)((?:[1-9]\\d{0,2}(?:${esc(group)}\\d{3})+)|\\d+)(?:${esc(point)}(\\d+))?$`).exec(s);
  if (strict) return `${strict[1]}${(strict[2] as string).split(group).join('')}${strict[3] !== undefined ? `.${strict[3]}` : ''}`;
  // The other notation's decimal separator, when it cannot be a thousands group.
  const other = new RegExp(`^(-?)(\\d+)${esc(group)}(\\d{1,2}|\\d{4,})$`).exec(s);
  return other ? `${other[1]}${other[2]}.${other[3]}` : null;
}

export const euro = (cents: number | bigint | string): string => money(formatCents(typeof cents === 'string' ? BigInt(cents) : cents));

/** A calendar date: "27.11.2026" (de), "27 Nov 2026" (en); "–" for none. */
export function date(iso: string | null): string {
  if (!iso) return '–';
  if (formatLang() === 'de') return formatDate(iso);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(iso)) throw new TypeError(`not a calendar date: ${iso}`);
  const [y, m, d] = iso.split('-') as [string, string, string];
  return `${Number(d)} ${MONTHS_EN[Number(m) - 1]} ${y}`;
}

export const today = (now: Date, timezone: string): string => calendarDate(now, timezone);

/** Instants (an audit row, an event) as date and time in the company's time zone, in the page's language. */
export const dateTimeFormat = (timeZone: string, timeStyle: 'short' | 'medium' = 'short') =>
  new Intl.DateTimeFormat(formatLang() === 'en' ? 'en-GB' : 'de-DE', { dateStyle: 'medium', timeStyle, timeZone });

/** A typed date, German (24.11.2026, 1.2.2027) or ISO, as ISO; null when it is neither (the day itself is not checked). */
export function isoOfTyped(text: string): string | null {
  const s = text.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return s;
  const german = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(s);
  return german ? `${german[3]}-${(german[2] as string).padStart(2, '0')}-${(german[1] as string).padStart(2, '0')}` : null;
}

/** A typed date that exists in the calendar (and in PostgreSQL's: no year 0), as ISO; else null. */
export function typedDate(text: string): string | null {
  const iso = isoOfTyped(text);
  return iso && isCalendarDate(iso) && iso >= '0001-01-01' ? iso : null;
}
