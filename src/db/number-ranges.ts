import { sql } from 'kysely';
import type { Trx } from './transaction.ts';

export type NumberRange = { key: string; first: number; last: number };

export const CUSTOMER_NUMBERS: NumberRange = { key: 'customer', first: 10000, last: 69999 };

/**
 * Draws the next number of a range inside the caller's transaction. The counter row is
 * locked until that transaction ends, so a rollback returns the number: no gaps, no
 * duplicates. Returns null when the range is used up.
 */
export async function drawNumber(trx: Trx, companyId: string, range: NumberRange): Promise<number | null> {
  await trx
    .insertInto('number_ranges')
    .values({ company_id: companyId, range_key: range.key, next_value: range.first, last_value: range.last })
    .onConflict((oc) => oc.columns(['company_id', 'range_key']).doNothing())
    .execute();
  const row = await trx
    .updateTable('number_ranges')
    .set({ next_value: sql`next_value + 1` })
    .where('company_id', '=', companyId)
    .where('range_key', '=', range.key)
    .where(sql<boolean>`next_value <= last_value`)
    .returning(sql<number>`next_value - 1`.as('drawn'))
    .executeTakeFirst();
  return row ? Number(row.drawn) : null;
}
