import { D } from '../../shared/decimal.ts';
import { formatDecimal } from '../../shared/german-format.ts';

// How amounts, dates and IBANs are written in a German mail (shared/german-format.ts).
export { formatDate, formatIban } from '../../shared/german-format.ts';

/** "1234.5" → "1.234,50 €", "-80.00" → "-80,00 €" (a plain space: mail clients wrap it fine). */
export function formatEuro(amount: string): string {
  return `${formatDecimal(new D(amount).toDecimalPlaces(2, D.ROUND_HALF_UP).toFixed(2), 2)} €`;
}
