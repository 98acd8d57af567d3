// Invoice numbers from the company's pattern (default RE-{yyyy}-{seq:5}), one counter per
// calendar year of the issue date; storno invoices draw from the same range.

export const INVOICE_NUMBER_LIMIT = 999_999_999;

export function invoiceRangeKey(issueDate: string): string {
  return `invoice:${issueDate.slice(0, 4)}`;
}
