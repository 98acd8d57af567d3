import { sql } from 'kysely';
import type { Trx } from '../../db/transaction.ts';
import { chunks } from '../../shared/arrays.ts';
import { decimal } from './amounts.ts';
import { legacyEntryKeys, uniqueReferenceOf } from './entry-key.ts';
import { type ImportNote, importNote } from './import-notes.ts';
import type { ParsedEntry, ParsedStatement } from './statement.ts';

// Which entries of a file are stored already (an earlier import of the same bookings, in
// this or another file) and which are new. Entries stored under the key scheme before
// issue 12 are recognised by what the booking is and take the new key.

export type StoredEntry = {
  id: string;
  entry_key: string;
  statement_id: string;
  account: string;
  booking_date: string;
  value_date: string | null;
  direction: string;
  reversal: boolean;
  bank_status: string;
  amount: string;
  currency: string;
};

export type KnownEntries = {
  fresh: ParsedEntry[];
  /** Entry → why it is not imported again. */
  duplicates: Map<ParsedEntry, ImportNote>;
  /** Stored entries of the earlier scheme recognised now: their id → the entry's new key. */
  rekeys: { id: string; key: string }[];
};

/** Keys of the current scheme (entry-key.ts), with an optional status prefix. */
const CURRENT_KEY = /^([a-z]+:)?e2:/;

const STORED_COLUMNS = [
  'id',
  'entry_key',
  'statement_id',
  'account',
  sql<string>`to_char(booking_date, 'YYYY-MM-DD')`.as('booking_date'),
  sql<string | null>`to_char(value_date, 'YYYY-MM-DD')`.as('value_date'),
  'direction',
  'reversal',
  'bank_status',
  sql<string>`amount::text`.as('amount'),
  'currency',
] as const;

/** Stored entries of the company under the given keys. */
export async function findStoredEntries(trx: Trx, companyId: string, keys: readonly string[]): Promise<Map<string, StoredEntry>> {
  const found = new Map<string, StoredEntry>();
  for (const part of chunks(keys, 5000)) {
    const rows = await trx
      .selectFrom('bank_entries')
      .select(STORED_COLUMNS)
      .where('company_id', '=', companyId)
      .where(sql<boolean>`entry_key = any(${part}::text[])`)
      .execute();
    for (const row of rows) found.set(row.entry_key, row as StoredEntry);
  }
  return found;
}

/** Entries stored under the earlier key scheme, of the file's accounts and booking dates. */
async function findLegacyEntries(trx: Trx, companyId: string, entries: readonly ParsedEntry[]): Promise<StoredEntry[]> {
  if (entries.length === 0) return [];
  const accounts = [...new Set(entries.map((e) => e.account))];
  const dates = entries.map((e) => e.bookingDate).sort();
  const rows = await trx
    .selectFrom('bank_entries')
    .select(STORED_COLUMNS)
    .where('company_id', '=', companyId)
    .where(sql<boolean>`account = any(${accounts}::text[])`)
    .where(sql<boolean>`booking_date between ${dates[0]}::date and ${dates.at(-1)}::date`)
    .where(sql<boolean>`entry_key !~ ${CURRENT_KEY.source}`)
    .orderBy('statement_id')
    .orderBy('position')
    .execute();
  return rows as StoredEntry[];
}

const bookingOf = (e: {
  account: string;
  bookingDate: string;
  valueDate: string | null;
  direction: string;
  reversal: boolean;
  status: string;
  amount: string;
  currency: string;
}) => JSON.stringify([e.account, e.bookingDate, e.valueDate, e.direction, e.reversal, e.status, decimal(e.amount).toFixed(), e.currency]);

const storedBooking = (row: StoredEntry) =>
  bookingOf({
    account: row.account,
    bookingDate: row.booking_date,
    valueDate: row.value_date,
    direction: row.direction,
    reversal: row.reversal,
    status: row.bank_status,
    amount: row.amount,
    currency: row.currency,
  });

/**
 * Splits the file's entries into new ones and ones stored before. An entry is stored
 * before when its key is; or when an entry of the earlier key scheme is the same booking
 * (account, booking and value date, direction, reversal, status, amount, currency) and has
 * not been paired with another entry of this file — one stored entry stands for one
 * booking, so two equal bookings that an earlier import kept as one are now both there.
 * Among several such stored entries the one with the entry's old key is taken first.
 */
export async function splitKnownEntries(trx: Trx, companyId: string, parsed: ParsedStatement): Promise<KnownEntries> {
  const stored = await findStoredEntries(
    trx,
    companyId,
    parsed.entries.map((e) => e.key),
  );
  const candidates = parsed.entries.filter((e) => !stored.has(e.key));
  const legacy = await findLegacyEntries(trx, companyId, candidates);
  const legacyKeys = legacyEntryKeys(parsed.entries, uniqueReferenceOf(parsed.format));
  const byBooking = new Map<string, StoredEntry[]>();
  for (const row of legacy) {
    const list = byBooking.get(storedBooking(row)) ?? [];
    list.push(row);
    byBooking.set(storedBooking(row), list);
  }

  const result: KnownEntries = { fresh: [], duplicates: new Map(), rekeys: [] };
  const seen = new Set<string>();
  parsed.entries.forEach((entry, i) => {
    const earlier = stored.get(entry.key);
    if (earlier) result.duplicates.set(entry, importNote('already_imported', { statement_id: earlier.statement_id }));
    else if (seen.has(entry.key)) result.duplicates.set(entry, importNote('twice_in_file', {}));
    else {
      const rows = byBooking.get(bookingOf(entry));
      const at = rows?.length
        ? Math.max(
            0,
            rows.findIndex((row) => row.entry_key === legacyKeys[i]),
          )
        : -1;
      if (rows && at >= 0) {
        const [row] = rows.splice(at, 1);
        result.duplicates.set(entry, importNote('already_imported', { statement_id: row!.statement_id }));
        result.rekeys.push({ id: row!.id, key: entry.key });
      } else result.fresh.push(entry);
    }
    seen.add(entry.key);
  });
  return result;
}

/** Gives stored entries of the earlier scheme their new keys (one UPDATE per 1000). */
export async function rekeyEntries(trx: Trx, companyId: string, rekeys: readonly { id: string; key: string }[]): Promise<void> {
  for (const part of chunks(rekeys, 1000)) {
    await sql`
      update bank_entries as b set entry_key = v.key
      from unnest(${part.map((r) => r.id)}::text[], ${part.map((r) => r.key)}::text[]) as v(id, key)
      where b.company_id = ${companyId} and b.id = v.id`.execute(trx);
  }
}

/**
 * After the import: every statement of the file must be fully there, each entry as one
 * stored booking of the same amount and direction, so what Kontor holds for the statement
 * moves the balance as the file says. The rows this import wrote are the file's own
 * entries; the others (imported before, re-keyed now) are read back. Returns the first
 * statement that does not add up.
 */
export async function statementsNotAddingUp(trx: Trx, companyId: string, parsed: ParsedStatement, written: ReadonlySet<ParsedEntry>): Promise<string | null> {
  const earlier = parsed.entries.filter((e) => !written.has(e)).map((e) => e.key);
  const stored = await findStoredEntries(trx, companyId, [...new Set(earlier)]);
  const counted = new Set<string>();
  const sums = parsed.statements.map(() => ({ file: decimal('0'), stored: decimal('0'), missing: 0 }));
  const signed = (amount: string, direction: string) => (direction === 'credit' ? decimal(amount) : decimal(amount).negated());
  for (const entry of parsed.entries) {
    // A repeated statement's entries share their first copy's keys: counted once.
    if (counted.has(entry.key)) continue;
    counted.add(entry.key);
    const sum = sums[entry.statementIndex]!;
    sum.file = sum.file.plus(signed(entry.amount, entry.direction));
    if (written.has(entry)) {
      sum.stored = sum.stored.plus(signed(entry.amount, entry.direction));
      continue;
    }
    const row = stored.get(entry.key);
    if (!row || row.bank_status !== entry.status || row.reversal !== entry.reversal) sum.missing += 1;
    else sum.stored = sum.stored.plus(signed(row.amount, row.direction));
  }
  const broken = sums.findIndex((sum) => sum.missing > 0 || !sum.file.equals(sum.stored));
  if (broken < 0) return null;
  const { file, stored: held, missing } = sums[broken]!;
  const id = parsed.statements[broken]!.id;
  return missing > 0
    ? `statement ${id}: ${missing} of its entries would not be held as the file writes them`
    : `statement ${id}: its entries move the balance by ${file.toFixed(2)}, the bookings Kontor holds for them by ${held.toFixed(2)}`;
}
