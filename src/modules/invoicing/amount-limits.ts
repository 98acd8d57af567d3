import type { ValidationIssue } from '../../shared/errors.ts';
import { MAX_AMOUNT, withinMaxAmount } from '../../shared/money.ts';
import type { CreateInvoiceLine } from './create-invoice-input.ts';
import { exactLineNet, exactTotals } from './totals.ts';

// Every amount of an invoice must be payable in one SEPA transfer (shared/money.ts
// MAX_AMOUNT). The schema bounds each unit price (MAX_UNIT_PRICE) and quantity (12 digits);
// what they multiply and add up to is checked here, exactly, before anything is stored or a
// number drawn, so a refused request leaves no trace (not even its Idempotency-Key).

const LIMIT = `${MAX_AMOUNT} EUR, the most one SEPA transfer can carry`;

/** The validation issues of a createInvoice body's amounts (none: every amount fits). */
export function amountLimitIssues(lines: readonly CreateInvoiceLine[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const nets = lines.map((line, i) => {
    const net = exactLineNet({ quantity: String(line.quantity), unitPriceNet: line.unit_price_net });
    if (!withinMaxAmount(net)) {
      issues.push({ loc: ['body', 'lines', i], type: 'greater_than_maximum', msg: `The line's net amount (quantity × unit_price_net) is above ${LIMIT}` });
    }
    return { vatRate: line.vat_rate, net };
  });
  if (issues.length > 0) return issues;
  // Lines are never negative here, so the gross bounds every other total; all are checked
  // all the same, so the rule does not rest on that.
  const totals = exactTotals(nets);
  const amounts = [totals.net, totals.tax, totals.gross, ...totals.perRate.flatMap((rate) => [rate.net, rate.tax])];
  if (!amounts.every(withinMaxAmount)) {
    issues.push({
      loc: ['body', 'lines'],
      type: 'greater_than_maximum',
      msg: `The invoice's total (net plus VAT) is above ${LIMIT}; split it into several invoices`,
    });
  }
  return issues;
}
