import { Decimal } from 'decimal.js';

// Exact decimal arithmetic for money and quantities; never binary floats.
export const D = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
export type DecimalValue = InstanceType<typeof D>;

/** A decimal as sent: digits, optional minus, at most 6 decimals, no exponent. */
export const DECIMAL_PATTERN = /^-?(0|[1-9]\d{0,11})(\.\d{1,6})?$/;

/** Round half up to 2 decimals, returned as a string with exactly two decimals. */
export function roundMoney(value: DecimalValue): string {
  return value.toDecimalPlaces(2, D.ROUND_HALF_UP).toFixed(2);
}
