import { sql } from 'kysely';
import { drawNumberInTransaction, drawNumbersInTransaction, type NumberRange } from '../../db/number-ranges.ts';
import type { Trx } from '../../db/transaction.ts';

// Every change of an invoice takes the next position in the company's change feed
// (GET /invoices?changed_since). The position is drawn under the counter's row lock,
// held until commit, so feed order equals commit order and a reader paging with a
// cursor never skips a change that commits later with a lower position.
const CHANGES: NumberRange = { key: 'invoice_changes', first: 1, last: Number.MAX_SAFE_INTEGER };

export async function nextChangeSeq(trx: Trx, companyId: string): Promise<number> {
  const seq = await drawNumberInTransaction(trx, companyId, CHANGES);
  if (seq === null) throw new Error('invoice change feed exhausted');
  return seq;
}

/** `count` consecutive positions for a batch of changes in one transaction; returns the first. */
export async function nextChangeSeqs(trx: Trx, companyId: string, count: number): Promise<number> {
  const first = await drawNumbersInTransaction(trx, companyId, CHANGES, count);
  if (first === null) throw new Error('invoice change feed exhausted');
  return first;
}

/**
 * nextChangeSeq as part of a data-modifying WITH (`change`, column `seq`): the invoice's
 * statement draws its own position, one round trip less under the number's row lock (issue
 * 26). The same draw under the same row lock, held to the commit; an upsert, so a company's
 * first change creates the row (starting at CHANGES.first) as drawNumberInTransaction does.
 */
export function changeSeqDraw(trx: Trx, companyId: string) {
  return trx
    .insertInto('number_ranges')
    .values({ company_id: companyId, range_key: CHANGES.key, next_value: CHANGES.first + 1, last_value: CHANGES.last })
    .onConflict((oc) =>
      oc
        .columns(['company_id', 'range_key'])
        .doUpdateSet({ next_value: sql`number_ranges.next_value + 1` })
        .where(sql<boolean>`number_ranges.next_value <= number_ranges.last_value`),
    )
    .returning(sql<number>`next_value - 1`.as('seq'));
}
