// German presentation of decimal strings, calendar dates and addresses, shared by the
// PDF, the e-invoice texts and the mails. String
// arithmetic only: the snapshot's amounts are exact decimals and must never pass
// through a float (style.md, money).

import { formatCents } from './money.ts';

const THOUSANDS = /\B(?=(\d{3})+(?!\d))/g;

/** Splits "-1234.5" into sign, integer digits and fraction digits. */
function splitDecimal(value: string): { negative: boolean; integer: string; fraction: string } {
  const trimmed = value.trim();
  const negative = trimmed.startsWith('-');
  const unsigned = negative || trimmed.startsWith('+') ? trimmed.slice(1) : trimmed;
  const [integer = '0', fraction = ''] = unsigned.split('.');
  return { negative, integer: integer.replace(/^0+(?=\d)/, '') || '0', fraction };
}

/** "-1234.5" → "-1.234,50"; at least `minDecimals`, trailing zeros beyond it dropped. */
export function formatDecimal(value: string, minDecimals = 2): string {
  const { negative, integer, fraction } = splitDecimal(value);
  let digits = fraction.replace(/0+$/, '');
  if (digits.length < minDecimals) digits = digits.padEnd(minDecimals, '0');
  const isZero = /^0*$/.test(integer + digits);
  const sign = negative && !isZero ? '-' : '';
  return sign + integer.replace(THOUSANDS, '.') + (digits ? ',' + digits : '');
}

/** "1234.56" → "1.234,56 €" (non-breaking space before the sign, as German typesetting does). */
export function formatMoney(amount: string): string {
  return formatDecimal(amount, 2) + '\u00a0€';
}

/** Cents as German money: 123456 → "1.234,56 €". */
export function formatCentsMoney(cents: number | bigint): string {
  return formatMoney(formatCents(cents));
}

/** Quantities as sent: "1.5" → "1,5", "10" → "10". */
export function formatQuantity(quantity: string): string {
  return formatDecimal(quantity, 0);
}

/** "2026-11-21" → "21.11.2026". */
export function formatDate(isoDate: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDate);
  if (!match) throw new TypeError(`not a calendar date: ${isoDate}`);
  return `${match[3]}.${match[2]}.${match[1]}`;
}

/** "01.10.–31.10.2026" (year once when both dates share it), "21.11.2026" for a single day. */
export function formatPeriod(period: { start: string; end: string }): string {
  if (period.start === period.end) return formatDate(period.start);
  const start = formatDate(period.start);
  const end = formatDate(period.end);
  if (period.start.slice(0, 4) === period.end.slice(0, 4)) return `${start.slice(0, 6)}–${end}`;
  return `${start} – ${end}`;
}

/** Groups an IBAN in blocks of four, the way it is printed on paper. */
export function formatIban(iban: string): string {
  return iban
    .replace(/\s+/g, '')
    .toUpperCase()
    .replace(/(.{4})(?=.)/g, '$1 ');
}

/** Drops the sign: used where the text already says the direction ("wird erstattet"). */
export function absolute(amount: string): string {
  return amount.trim().replace(/^[-+]/, '');
}

/** The seller's full name with its legal form, unless the name already ends with it. */
export function legalName(party: { name: string; legalForm?: string | null }): string {
  const form = party.legalForm?.trim();
  if (!form || party.name.trim().endsWith(form)) return party.name.trim();
  return `${party.name.trim()} ${form}`;
}

/** "Hauptstraße 5" from street and house number, either may be missing. */
export function streetLine(party: { street: string | null; houseNumber: string | null }): string | null {
  const line = [party.street, party.houseNumber].filter((part) => part?.trim()).join(' ');
  return line || null;
}

/** "10115 Berlin". */
export function cityLine(party: { zip: string | null; city: string | null }): string | null {
  const line = [party.zip, party.city].filter((part) => part?.trim()).join(' ');
  return line || null;
}
