import type { DecimalValue } from './decimal.ts';

// Money as integer cents (style.md, money). Arithmetic that can grow (products of
// quantities and prices, sums over lines) runs in decimals or bigint and is exact at any
// size; an amount becomes a JS number only as a safe integer, where sums and differences
// are exact too. Every amount Kontor stores lies within MAX_AMOUNT, far below 2^53 cents.

/**
 * The largest amount Kontor bills, books or prints, in euros: 999,999,999.99, the most a
 * SEPA credit transfer can carry (pain.001 InstdAmt: 0.01 to 999999999.99), so every
 * invoice can be paid in one transfer. Each line net, each VAT rate's net and tax and every invoice total stays within
 * ± this amount; createInvoice refuses more with validation_failed.
 */
export const MAX_AMOUNT = '999999999.99';
export const MAX_AMOUNT_CENTS = 99_999_999_999n;

/**
 * The largest unit price accepted (invoice lines, products): below one billion euros, i.e.
 * at most 9 digits before the decimal point (and 6 after, like every decimal).
 */
export const MAX_UNIT_PRICE = '999999999.999999';

/** Whether cents lie within ± MAX_AMOUNT. */
export function withinMaxAmount(cents: bigint): boolean {
  return cents <= MAX_AMOUNT_CENTS && cents >= -MAX_AMOUNT_CENTS;
}

/** Whole cents as a number; a RangeError instead of a rounded value beyond the safe integers. */
export function centsNumber(cents: bigint | DecimalValue): number {
  const exact = typeof cents === 'bigint' ? cents : wholeCents(cents);
  const value = Number(exact);
  if (!Number.isSafeInteger(value)) throw new RangeError(`${exact} cents are beyond the exact range of a number`);
  return value;
}

/** A number of cents as bigint; a RangeError for a fraction or a number beyond the safe integers (already inexact). */
export function exactCents(cents: number): bigint {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`${cents} is not a whole, exact number of cents`);
  return BigInt(cents);
}

function wholeCents(value: DecimalValue): bigint {
  if (!value.isInteger()) throw new RangeError(`${value.toFixed()} is not a whole number of cents`);
  return BigInt(value.toFixed(0));
}

/**
 * Cents as a decimal string with exactly two decimals, by digits, never by division:
 * -1230 → "-12.30", 7 → "0.07". `separator` "," gives DATEV's and MT940's decimal comma.
 */
export function formatCents(cents: number | bigint, separator = '.'): string {
  const value = typeof cents === 'bigint' ? cents : exactCents(cents);
  const digits = (value < 0n ? -value : value).toString().padStart(3, '0');
  return `${value < 0n ? '-' : ''}${digits.slice(0, -2)}${separator}${digits.slice(-2)}`;
}
