import { sql } from 'kysely';
import type { Database } from './connection.ts';
import type { Trx } from './transaction.ts';

// Number ranges per company (customer numbers now, invoice numbers later). A number is
// drawn by `update number_ranges set next_value = next_value + 1 … returning` inside the
// statement or transaction that uses it: the row lock orders concurrent draws, and a
// rollback returns the number, so numbers have no gaps and no duplicates.

export type NumberRange = { key: string; first: number; last: number };

export const CUSTOMER_NUMBERS: NumberRange = { key: 'customer', first: 10000, last: 69999 };
/** Creditor numbers (Kreditorennummern) of suppliers, revenue-share partners among them (design §4). */
export const CREDITOR_NUMBERS: NumberRange = { key: 'creditor', first: 70000, last: 79999 };

function insertRangeRow(db: Database | Trx, companyId: string, range: NumberRange) {
  return db
    .insertInto('number_ranges')
    .values({ company_id: companyId, range_key: range.key, next_value: range.first, last_value: range.last })
    .onConflict((oc) => oc.columns(['company_id', 'range_key']).doNothing())
    .execute();
}

/** Creates the company's range row unless it exists; tells whether the range is used up. */
export async function ensureNumberRange(db: Database, companyId: string, range: NumberRange): Promise<{ exhausted: boolean }> {
  await insertRangeRow(db, companyId, range);
  const row = await db
    .selectFrom('number_ranges')
    .select(['next_value', 'last_value'])
    .where('company_id', '=', companyId)
    .where('range_key', '=', range.key)
    .executeTakeFirstOrThrow();
  return { exhausted: row.next_value > row.last_value };
}

/**
 * Draws the next number of a range inside the caller's transaction. The counter row stays
 * locked until that transaction ends, so a rollback returns the number: no gaps, no
 * duplicates, and numbers become visible in the order they were drawn. Null when used up.
 */
export async function drawNumberInTransaction(trx: Trx, companyId: string, range: NumberRange): Promise<number | null> {
  const draw = () =>
    trx
      .updateTable('number_ranges')
      .set({ next_value: sql`next_value + 1` })
      .where('company_id', '=', companyId)
      .where('range_key', '=', range.key)
      .where(sql<boolean>`next_value <= last_value`)
      .returning(sql<number>`next_value - 1`.as('drawn'))
      .executeTakeFirst();
  // The range row exists for every draw but a company's very first: try the draw first.
  let row = await draw();
  if (!row) {
    await insertRangeRow(trx, companyId, range);
    row = await draw();
  }
  return row ? Number(row.drawn) : null;
}

/**
 * Draws `count` consecutive numbers of a range inside the caller's transaction (for a batch
 * of changes) under the same row lock as drawNumberInTransaction; returns the first. Null
 * when fewer than `count` are left.
 */
export async function drawNumbersInTransaction(trx: Trx, companyId: string, range: NumberRange, count: number): Promise<number | null> {
  if (!Number.isSafeInteger(count) || count < 1) throw new Error(`cannot draw ${count} numbers`);
  const draw = () =>
    trx
      .updateTable('number_ranges')
      .set({ next_value: sql`next_value + ${count}` })
      .where('company_id', '=', companyId)
      .where('range_key', '=', range.key)
      .where(sql<boolean>`next_value + ${count} - 1 <= last_value`)
      .returning(sql<number>`next_value - ${count}`.as('first'))
      .executeTakeFirst();
  let row = await draw();
  if (!row) {
    await insertRangeRow(trx, companyId, range);
    row = await draw();
  }
  return row ? Number(row.first) : null;
}
