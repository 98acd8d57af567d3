import { D, type DecimalValue } from '../../shared/decimal.ts';
import { centsNumber, formatCents } from '../../shared/money.ts';

// Amounts from bank files stay exact: decimal strings in, integer cents for EUR out.

/** camt ActiveOrHistoricCurrencyAndAmount: up to 18 digits, at most 5 of them decimals, no sign. */
const CAMT_AMOUNT = /^\d{1,18}(\.\d{1,5})?$/;
/** MT940 amount: digits with a decimal comma ("119,00", "119,", "119"). */
const MT940_AMOUNT = /^(\d{1,15})(?:,(\d{0,5}))?$/;

export function isCamtAmount(text: string): boolean {
  return CAMT_AMOUNT.test(text);
}

/** "119,5" → "119.5"; null when the text is not an MT940 amount. */
export function mt940Amount(text: string): string | null {
  const match = MT940_AMOUNT.exec(text);
  if (!match) return null;
  return match[2] ? `${match[1]}.${match[2]}` : match[1]!;
}

export function decimal(amount: string): DecimalValue {
  return new D(amount);
}

/** "119.5" → 11950; null when the amount has non-zero digits beyond cents (or is beyond any number). */
export function toCents(amount: string): number | null {
  const cents = new D(amount).times(100);
  if (!cents.isInteger() || cents.abs().greaterThan(Number.MAX_SAFE_INTEGER)) return null;
  return centsNumber(cents);
}

/** 11950 → "119.50" */
export function centsToAmount(cents: number): string {
  return formatCents(cents);
}

/** A decimal with two places as the file's notation writes it: dot (camt) or comma (MT940). */
export function formatAmount(value: DecimalValue, comma: boolean): string {
  const text = value.toFixed(2);
  return comma ? text.replace('.', ',') : text;
}

/** An amount as the import shows it: at least two decimals ("6" → "6.00"), more only where the file has them. */
export function displayAmount(amount: string): string {
  if (/^\d+\.\d\d$/.test(amount)) return amount;
  const value = new D(amount);
  return value.decimalPlaces() <= 2 ? value.toFixed(2) : value.toFixed();
}
