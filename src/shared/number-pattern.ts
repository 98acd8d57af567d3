// Number patterns of a company (invoice_number_pattern RE-{yyyy}-{seq:5},
// contract_number_pattern V-{seq:5}): {yyyy} {yy} {mm} of the day the number is drawn on,
// {seq} or {seq:N} the counter zero-padded to N digits.

/** Formats a drawn counter value with the pattern. */
export function formatNumberPattern(pattern: string, day: string, seq: number): string {
  return pattern
    .replace(/\{yyyy\}/g, day.slice(0, 4))
    .replace(/\{yy\}/g, day.slice(2, 4))
    .replace(/\{mm\}/g, day.slice(5, 7))
    .replace(/\{seq(?::(\d))?\}/g, (_m, width: string | undefined) => String(seq).padStart(Number(width ?? 1), '0'));
}

/** A pattern needs the counter, else every number would be the same. */
export const hasSeqPlaceholder = (pattern: string) => /\{seq(:\d)?\}/.test(pattern);
