import { createHash } from 'node:crypto';
import { D } from '../../shared/decimal.ts';
import type { ParsedEntry } from './statement.ts';

// The key that makes an entry importable once per company, whatever file carries it.
//
// - The bank's own reference (camt AcctSvcrRef) when present: unique per account at the bank.
// - Otherwise (MT940, camt without AcctSvcrRef) a hash of what the booking says: account,
//   booking and value date, direction, reversal, amount, currency, references, payer and
//   remittance text, plus the occurrence number among identical entries of the same
//   statement (two equal transfers on one day are two payments; the same statement
//   exported twice gives the same numbers).
// - Entries that are not booked (PDNG, INFO) carry their status in the key, so the booked
//   entry that follows later under the same reference is not taken for a duplicate.

export type UnkeyedEntry = Omit<ParsedEntry, 'key'>;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function canonicalAmount(amount: string): string {
  return new D(amount).toFixed();
}

function contentOf(entry: UnkeyedEntry): string {
  return JSON.stringify([
    entry.account,
    entry.bookingDate,
    entry.valueDate,
    entry.direction,
    entry.reversal,
    canonicalAmount(entry.amount),
    entry.currency,
    entry.bankReference,
    entry.bookingText,
    entry.transactions.map((t) => [canonicalAmount(t.amount), t.endToEndId, t.creditorReference, t.counterpartyIban, t.counterpartyName, t.remittanceText]),
  ]);
}

/**
 * Keys for the entries of one file, in order. `uniqueReference(entry)` gives the bank's
 * unique reference of an entry, or null when the format has none.
 */
export function entryKeys(entries: readonly UnkeyedEntry[], uniqueReference: (entry: UnkeyedEntry) => string | null): string[] {
  const seen = new Map<string, number>();
  return entries.map((entry) => {
    const status = entry.status === 'BOOK' ? '' : `${entry.status.toLowerCase()}:`;
    const reference = uniqueReference(entry);
    if (reference) return `${status}ref:${sha256(JSON.stringify([entry.account, reference]))}`;
    const content = sha256(contentOf(entry));
    const scope = `${entry.statementIndex}:${content}`;
    const occurrence = (seen.get(scope) ?? 0) + 1;
    seen.set(scope, occurrence);
    return `${status}hash:${sha256(`${content}#${occurrence}`)}`;
  });
}
