import { D } from '../../shared/decimal.ts';

// How amounts, dates and IBANs are written in a German letter. Exact decimals, no floats.

/** "1234.5" → "1.234,50 €", "-80.00" → "-80,00 €". */
export function formatEuro(amount: string): string {
  const fixed = new D(amount).toDecimalPlaces(2, D.ROUND_HALF_UP).toFixed(2);
  const negative = fixed.startsWith('-') && !/^-0\.00$/.test(fixed);
  const [whole = '0', cents = '00'] = fixed.replace('-', '').split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${negative ? '-' : ''}${grouped},${cents} €`;
}

/** "2026-01-15" → "15.01.2026". */
export function formatDate(isoDate: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDate);
  if (!match) throw new TypeError(`not a calendar date: ${isoDate}`);
  return `${match[3]}.${match[2]}.${match[1]}`;
}

/** "DE89370400440532013000" → "DE89 3704 0044 0532 0130 00" (the paper format of ISO 13616). */
export function formatIban(iban: string): string {
  return iban
    .replace(/\s+/g, '')
    .toUpperCase()
    .replace(/(.{4})(?=.)/g, '$1 ');
}
