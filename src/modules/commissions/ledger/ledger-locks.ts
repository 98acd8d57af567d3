import { sql } from 'kysely';
import type { Trx } from '../../../db/transaction.ts';

// A lock per customer's ledger (and one for the company's revenue without a customer), held
// to the end of the transaction (issue 24). Writing new revenue in the fast path takes it
// shared: batches of new revenue for one customer run side by side. Computing a customer's
// entries again (a late fact, a refund, a reversal) takes it exclusive: it waits for the
// batches that are writing the customer's revenue and they wait for it, so neither works from
// facts the other has not committed. PostgreSQL advisory locks: the customers of a company
// share LOCK_BUCKETS of them (a customer's bucket is a hash of its id), so that a bank import
// paying 10,000 customers' invoices holds at most that many locks (PostgreSQL's lock table
// has room for max_locks_per_transaction × connections, 6,400 by default, for everyone);
// two customers of one bucket only wait for each other when one of them is computed again.
// Taken in one statement in key order, so two transactions never take them in opposite orders.

const LEDGER_LOCK_SEED = 24;
/** Lock buckets per company. */
export const LOCK_BUCKETS = 64;

export type LedgerLockMode = 'shared' | 'exclusive';

/** A customer's bucket (FNV-1a of its id; '' for revenue without a customer). */
export function lockBucket(customerKey: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < customerKey.length; i++) {
    hash ^= customerKey.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % LOCK_BUCKETS;
}

/** Locks the ledgers of these customers (null: revenue without a customer); exclusive wins when a bucket is named twice. */
export async function lockLedgers(trx: Trx, companyId: string, locks: Iterable<[customerId: string | null, mode: LedgerLockMode]>): Promise<void> {
  const modes = new Map<string, boolean>();
  for (const [customerId, mode] of locks) {
    const key = `${companyId}\n${lockBucket(customerId ?? '')}`;
    modes.set(key, (modes.get(key) ?? false) || mode === 'exclusive');
  }
  if (modes.size === 0) return;
  await sql`
    select case when s.x then pg_advisory_xact_lock(hashtextextended(s.k, ${LEDGER_LOCK_SEED}))::text
                else pg_advisory_xact_lock_shared(hashtextextended(s.k, ${LEDGER_LOCK_SEED}))::text end
    from (select k, x from unnest(${[...modes.keys()]}::text[], ${[...modes.values()]}::boolean[]) as t(k, x) order by k) s`.execute(trx);
}
