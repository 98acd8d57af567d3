import { DECIMAL_PATTERN } from '../../shared/decimal.ts';
import { AppError, type ValidationIssue, validationFailed } from '../../shared/errors.ts';
import { MAX_AMOUNT_CENTS } from '../../shared/money.ts';

// createRevenueEvent's body after the schema, checked without the database: amounts in
// whole cents within ± MAX_AMOUNT (validation_failed), the sign of a refund, the lines
// adding up (commission.revenue_lines_do_not_add_up).

export type RevenueEventBody = {
  source: string;
  external_ref: string;
  occurred_at: string;
  net_amount: string;
  currency?: 'EUR';
  customer?: { source: string; external_ref: string } | null;
  reverses_ref?: string | null;
  description?: string | null;
  lines?: { net_amount: string; product_ref?: string; product_number?: string; description?: string | null }[];
};

export type PreparedLine = { netCents: bigint; productRef: string | null; productNumber: string | null; description: string | null };

export type PreparedEvent = {
  source: string;
  externalRef: string;
  occurredAt: Date;
  netCents: bigint;
  customer: { source: string; externalRef: string } | null;
  reversesRef: string | null;
  description: string | null;
  lines: PreparedLine[];
};

/** Whole cents of a decimal string, or the issue (more than two decimals, beyond ± MAX_AMOUNT). */
function cents(text: string, loc: (string | number)[], issues: ValidationIssue[]): bigint {
  if (!DECIMAL_PATTERN.test(text) || (text.split('.')[1]?.length ?? 0) > 2) {
    issues.push({ loc, type: 'decimal', msg: 'Input should be an amount in EUR with at most two decimal places (whole cents), without exponent' });
    return 0n;
  }
  // The pattern holds: digits, an optional minus and at most two decimals, so the cents are
  // the digits with the decimals padded to two (exact, without decimal arithmetic).
  const [whole, fraction = ''] = text.split('.') as [string, string?];
  const value = BigInt(`${whole}${fraction.padEnd(2, '0')}`);
  if (value > MAX_AMOUNT_CENTS) issues.push({ loc, type: 'greater_than_maximum', msg: 'Amounts are at most 999999999.99' });
  if (value < -MAX_AMOUNT_CENTS) issues.push({ loc, type: 'less_than_minimum', msg: 'Amounts are at least -999999999.99' });
  return value;
}

export function prepareRevenueEvent(body: RevenueEventBody): PreparedEvent {
  const issues: ValidationIssue[] = [];
  const netCents = cents(body.net_amount, ['body', 'net_amount'], issues);
  const reversesRef = body.reverses_ref ?? null;
  if (issues.length === 0) {
    if (reversesRef === null && netCents < 0n)
      issues.push({ loc: ['body', 'net_amount'], type: 'less_than_minimum', msg: 'A negative amount is a refund: name the event it reverses in reverses_ref' });
    if (reversesRef !== null && netCents >= 0n)
      issues.push({ loc: ['body', 'net_amount'], type: 'greater_than_maximum', msg: 'A refund (reverses_ref) has a negative net_amount' });
  }
  const lines: PreparedLine[] = (body.lines ?? [{ net_amount: body.net_amount }]).map((line, index) => {
    const product = line as { product_ref?: string; product_number?: string };
    if (product.product_ref !== undefined && product.product_number !== undefined)
      issues.push({
        loc: ['body', 'lines', index, 'product_number'],
        type: 'extra_forbidden',
        msg: 'Name a product by product_ref or by product_number, not both',
      });
    return {
      netCents: cents(line.net_amount, ['body', 'lines', index, 'net_amount'], issues),
      productRef: product.product_ref ?? null,
      productNumber: product.product_number ?? null,
      description: (line as { description?: string | null }).description?.trim() || null,
    };
  });
  if (issues.length > 0) throw validationFailed(issues);
  const sum = lines.reduce((total, line) => total + line.netCents, 0n);
  if (sum !== netCents) throw new AppError('commission.revenue_lines_do_not_add_up');
  return {
    source: body.source,
    externalRef: body.external_ref,
    occurredAt: new Date(body.occurred_at),
    netCents,
    customer: body.customer ? { source: body.customer.source, externalRef: body.customer.external_ref } : null,
    reversesRef,
    description: body.description?.trim() || null,
    lines,
  };
}
