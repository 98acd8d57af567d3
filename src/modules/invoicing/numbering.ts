// Invoice numbers from the company's pattern (default RE-{yyyy}-{seq:5}), one counter per
// calendar year of the issue date; storno invoices draw from the same range.

export const INVOICE_NUMBER_LIMIT = 999_999_999;

export function invoiceRangeKey(issueDate: string): string {
  return `invoice:${issueDate.slice(0, 4)}`;
}

/** Formats a number: {yyyy} {yy} {mm} of the issue date, {seq} or {seq:N} (zero-padded to N). */
export function formatInvoiceNumber(pattern: string, issueDate: string, seq: number): string {
  return pattern
    .replace(/\{yyyy\}/g, issueDate.slice(0, 4))
    .replace(/\{yy\}/g, issueDate.slice(2, 4))
    .replace(/\{mm\}/g, issueDate.slice(5, 7))
    .replace(/\{seq(?::(\d))?\}/g, (_m, width: string | undefined) => String(seq).padStart(Number(width ?? 1), '0'));
}
