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
