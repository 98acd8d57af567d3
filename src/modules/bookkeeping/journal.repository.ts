import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { JournalDocumentType, JournalEntriesTable } from '../../db/schema-bookkeeping.ts';
import type { Trx } from '../../db/transaction.ts';
import type { JournalLine } from './journal.ts';

// Plain Kysely functions for the journal. Entries and lines are only ever inserted.

export type NewJournalEntry = Omit<JournalEntriesTable, 'created_at'>;

export type StoredEntry = { id: string; documentNumber: string; lines: JournalLine[] };

export async function findEntryByDocument(
  db: Database | Trx,
  companyId: string,
  documentType: JournalDocumentType,
  documentId: string,
): Promise<StoredEntry | undefined> {
  const entry = await db
    .selectFrom('journal_entries')
    .select(['id', 'document_number'])
    .where('company_id', '=', companyId)
    .where('document_type', '=', documentType)
    .where('document_id', '=', documentId)
    .executeTakeFirst();
  if (!entry) return undefined;
  const lines = await db
    .selectFrom('journal_lines')
    .select(['account', 'side', 'amount_cents', 'tax_key'])
    .where('company_id', '=', companyId)
    .where('entry_id', '=', entry.id)
    .orderBy('position')
    .execute();
  return {
    id: entry.id,
    documentNumber: entry.document_number,
    lines: lines.map((l) => ({ account: l.account, side: l.side, amountCents: l.amount_cents, taxKey: l.tax_key })),
  };
}

/**
 * Inserts the entry and its lines. Returns false (and writes nothing) when the document is
 * booked already — also when a concurrent transaction booked it first: ON CONFLICT waits for
 * that transaction and then does nothing.
 *
 * One statement (a data-modifying WITH): the lines are selected from the entry the insert
 * returned, so none is written when it returned none. An issuing transaction books under its
 * number's row lock, so one round trip less there is more documents per second (issue 26).
 */
export async function insertJournalEntry(trx: Trx, entry: NewJournalEntry, lines: readonly JournalLine[]): Promise<boolean> {
  if (lines.length === 0) throw new Error('a journal entry has lines');
  const values = lines.map((line, i) => sql`(${i + 1}::integer, ${line.account}::text, ${line.side}::text, ${line.amountCents}::bigint, ${line.taxKey}::text)`);
  const inserted = await trx
    .with('entry', (db) =>
      db
        .insertInto('journal_entries')
        .values(entry)
        .onConflict((oc) => oc.columns(['company_id', 'document_type', 'document_id']).doNothing())
        .returning(['company_id', 'id']),
    )
    .insertInto('journal_lines')
    .columns(['company_id', 'entry_id', 'position', 'account', 'side', 'amount_cents', 'tax_key'])
    .expression(
      sql`select entry.company_id, entry.id, v.position, v.account, v.side, v.amount_cents, v.tax_key
          from entry cross join (values ${sql.join(values)}) as v(position, account, side, amount_cents, tax_key)`,
    )
    .returning('position')
    .execute();
  return inserted.length > 0;
}

/**
 * A new entry and its lines as two inserts not yet run, for a caller that makes them part of
 * its own statement (newInvoiceBookingWrites). No ON CONFLICT: the entry is of a document
 * made in the same transaction, so a second booking of it is a bug and fails the statement.
 * The lines' foreign key to the entry is checked at the statement's end.
 */
export function journalEntryWrites(trx: Trx, entry: NewJournalEntry, lines: readonly JournalLine[]) {
  if (lines.length === 0) throw new Error('a journal entry has lines');
  return [
    trx.insertInto('journal_entries').values(entry),
    trx.insertInto('journal_lines').values(
      lines.map((line, i) => ({
        company_id: entry.company_id,
        entry_id: entry.id,
        position: i + 1,
        account: line.account,
        side: line.side,
        amount_cents: line.amountCents,
        tax_key: line.taxKey,
      })),
    ),
  ];
}

/** The last locked day of the company's accounting period, or null. */
export async function lockedUntil(db: Database | Trx, companyId: string): Promise<string | null> {
  const row = await db.selectFrom('period_locks').select('locked_until').where('company_id', '=', companyId).executeTakeFirst();
  return row?.locked_until ?? null;
}

export type JournalRow = {
  entry_id: string;
  entry_date: string;
  document_number: string;
  description: string;
  chart: 'SKR03' | 'SKR04';
  service_date: string | null;
  counterparty_vat_id: string | null;
  /** The number whose open item the entry settles (DATEV Belegfeld 1), or null: its own. */
  settles_number?: string | null;
  position: number;
  account: string;
  side: 'S' | 'H';
  amount_cents: number;
  tax_key: string | null;
};

/** Every line of the entries dated in [from, to], in booking order. */
export async function listJournalRows(db: Database, companyId: string, from: string, to: string): Promise<JournalRow[]> {
  return db
    .selectFrom('journal_entries as e')
    .innerJoin('journal_lines as l', (join) => join.onRef('l.company_id', '=', 'e.company_id').onRef('l.entry_id', '=', 'e.id'))
    .select([
      'e.id as entry_id',
      'e.entry_date',
      'e.document_number',
      'e.description',
      'e.chart',
      'e.service_date',
      'e.counterparty_vat_id',
      'e.settles_number',
      'l.position',
      'l.account',
      'l.side',
      'l.amount_cents',
      'l.tax_key',
    ])
    .where('e.company_id', '=', companyId)
    .where('e.entry_date', '>=', from)
    .where('e.entry_date', '<=', to)
    .orderBy('e.entry_date')
    .orderBy('e.created_at')
    .orderBy('e.id')
    .orderBy('l.position')
    .execute();
}
