import { createHash } from 'node:crypto';
import { D } from '../../shared/decimal.ts';
import type { ParsedStatement, StatementInfo, UnkeyedEntry, UnkeyedStatement } from './statement.ts';

// The key that makes a booking importable once per company, whatever file carries it: the
// day's statement, an intraday report or a notification of the same booking, a longer
// export that overlaps an earlier one.
//
// A key is a hash of everything that makes the entry one booking:
// - account, booking date, direction, reversal, amount and currency, always;
// - the bank's own reference (camt AcctSvcrRef) when the format has one and the bank filled
//   it (not NONREF): then nothing else is needed, and details a report may word otherwise
//   than the statement (remittance, names) stay out of it;
// - otherwise (MT940, camt without a usable reference) also the value date, the bank and
//   end-to-end references, booking text, parties and remittance text of each transaction;
// - the occurrence among entries with the same content in the whole file: two equal
//   transfers on one day are two payments, also when the day is split over two statement
//   parts (:62M:/:60M:); the same day exported again numbers them the same.
// A statement the file repeats as a whole (same id, account, balances and entries) gets the
// keys of its first copy, so its entries count as the duplicates they are. Parts under one
// id whose balances follow on (N26 writes every part of a day with the same :28C:) are no
// repeat: the balances prove each part's bookings real.
// Entries that are not booked (PDNG, INFO) carry their status, so the booked entry that
// follows under the same reference is not taken for a duplicate.
//
// Keys of this scheme start with "e2:"; keys stored before it (issue 4) are `legacyEntryKeys`.

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const canonicalAmount = (amount: string) => new D(amount).toFixed();

/** References banks write when they have none. */
const NO_REFERENCE = new Set(['NONREF', 'NOTPROVIDED', 'NONE', 'KEINE', 'N/A']);

export function usableReference(reference: string | null): string | null {
  const trimmed = reference?.trim() ?? '';
  return trimmed === '' || NO_REFERENCE.has(trimmed.toUpperCase()) ? null : trimmed;
}

function transactionsContent(entry: UnkeyedEntry) {
  return entry.transactions.map((t) => [
    canonicalAmount(t.amount),
    t.endToEndId,
    t.creditorReference,
    t.counterpartyIban,
    t.counterpartyName,
    t.remittanceText,
  ]);
}

function identity(entry: UnkeyedEntry, reference: string | null): string {
  const booking = [entry.account, entry.bookingDate, entry.direction, entry.reversal, canonicalAmount(entry.amount), entry.currency];
  if (reference) return JSON.stringify(['ref', ...booking, reference]);
  return JSON.stringify(['content', ...booking, entry.valueDate, entry.bankReference, entry.bookingText, transactionsContent(entry)]);
}

const statusPrefix = (entry: UnkeyedEntry) => (entry.status === 'BOOK' ? '' : `${entry.status.toLowerCase()}:`);

/** The bank's unique reference of an entry by format: camt AcctSvcrRef; MT940/MT942 have none. */
export const uniqueReferenceOf =
  (format: ParsedStatement['format']) =>
  (entry: UnkeyedEntry): string | null =>
    format.startsWith('camt') ? entry.bankReference : null;

/** The file's entries with their keys (see above). */
export function withEntryKeys(parsed: UnkeyedStatement): ParsedStatement {
  const keys = entryKeys(parsed.entries, uniqueReferenceOf(parsed.format), parsed.statements);
  return { ...parsed, entries: parsed.entries.map((entry, i) => ({ ...entry, key: keys[i]! })) };
}

/**
 * Keys for the entries of one file, in order. `uniqueReference(entry)` gives the bank's
 * unique reference of an entry, or null when the format has none; `statements` (id and
 * account) tell a repeated statement from two parts of a day that book the same.
 */
export function entryKeys(
  entries: readonly UnkeyedEntry[],
  uniqueReference: (entry: UnkeyedEntry) => string | null,
  statements: readonly StatementInfo[] = [],
): string[] {
  const identities = entries.map((entry) => identity(entry, usableReference(uniqueReference(entry))));
  const firstCopy = repeatedStatements(entries, identities, statements);
  const seen = new Map<string, number>();
  const keys: string[] = [];
  entries.forEach((entry, i) => {
    const copied = firstCopy.get(entry.statementIndex);
    if (copied) {
      // The n-th entry of a repeated statement takes the key of the n-th entry of its first copy.
      keys.push(keys[copied.start + (i - copied.ownStart)]!);
      return;
    }
    const content = `${statusPrefix(entry)}${identities[i]}`;
    const occurrence = (seen.get(content) ?? 0) + 1;
    seen.set(content, occurrence);
    keys.push(`${statusPrefix(entry)}e2:${sha256(`${content}#${occurrence}`)}`);
  });
  return keys;
}

/** Statements that repeat an earlier one of the file as a whole: index → where the first copy's entries start. */
function repeatedStatements(entries: readonly UnkeyedEntry[], identities: readonly string[], statements: readonly StatementInfo[]) {
  const parts = new Map<number, { start: number; contents: string[] }>();
  entries.forEach((entry, i) => {
    const part = parts.get(entry.statementIndex) ?? { start: i, contents: [] };
    part.contents.push(`${statusPrefix(entry)}${identities[i]}`);
    parts.set(entry.statementIndex, part);
  });
  const first = new Map<string, number>();
  const repeats = new Map<number, { start: number; ownStart: number }>();
  for (const [index, part] of parts) {
    const info = statements[index];
    // Without the statement's id and account nothing tells a repeat from a second part.
    if (!info) continue;
    // Parts of a split day (N26: :62M:/:60M: under one :28C:) may book the same: their
    // balances follow on (0 → 12, 12 → 24), a repeat's are the same (0 → 12, 0 → 12).
    const signature = sha256(JSON.stringify([info.id, info.account, info.opening, info.closing, part.contents]));
    const earlier = first.get(signature);
    if (earlier === undefined) first.set(signature, part.start);
    else repeats.set(index, { start: earlier, ownStart: part.start });
  }
  return repeats;
}

/**
 * The keys the import gave the same entries before this scheme (issue 4): the bank's
 * reference alone when there was one, else the content with its occurrence counted per
 * statement part. Only for recognising entries stored then.
 */
export function legacyEntryKeys(entries: readonly UnkeyedEntry[], uniqueReference: (entry: UnkeyedEntry) => string | null): string[] {
  const seen = new Map<string, number>();
  return entries.map((entry) => {
    const status = statusPrefix(entry);
    const reference = uniqueReference(entry);
    if (reference) return `${status}ref:${sha256(JSON.stringify([entry.account, reference]))}`;
    const content = sha256(
      JSON.stringify([
        entry.account,
        entry.bookingDate,
        entry.valueDate,
        entry.direction,
        entry.reversal,
        canonicalAmount(entry.amount),
        entry.currency,
        entry.bankReference,
        entry.bookingText,
        transactionsContent(entry),
      ]),
    );
    const scope = `${entry.statementIndex}:${content}`;
    const occurrence = (seen.get(scope) ?? 0) + 1;
    seen.set(scope, occurrence);
    return `${status}hash:${sha256(`${content}#${occurrence}`)}`;
  });
}
