import { sql, type Transaction } from 'kysely';
import { AppError, RetryTransaction } from '../shared/errors.ts';
import type { Database } from './connection.ts';
import { isStalePlan } from './prepared-statements.ts';
import type { DB } from './schema.ts';

export type Trx = Transaction<DB>;

// PostgreSQL codes that mean "another transaction got there first; run again".
const RETRYABLE = new Set(['40001', '40P01', '23505']);
const MAX_ATTEMPTS = 5;

function isRetryable(error: unknown): boolean {
  if (error instanceof RetryTransaction) return true;
  // A stale prepared statement (a schema change by another process, e.g. migrations) is
  // prepared afresh when the transaction runs again.
  if (isStalePlan(error)) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE.has(code);
}

/**
 * Runs `work` in one transaction. A serialization failure, deadlock, unique violation,
 * stale prepared statement or RetryTransaction rolls back and runs it again, a few times
 * with a short random pause; when retries are exhausted the caller gets 409 conflict_retry.
 */
export async function inTransaction<T>(db: Database, work: (trx: Trx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (!isRetryable(error)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw new AppError('conflict_retry');
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
    }
  }
}

/**
 * Lets PostgreSQL reuse its plans for the rest of the transaction (`plan_cache_mode = auto`,
 * PostgreSQL's default, as SET LOCAL). Sessions run with `force_custom_plan` (connection.ts),
 * so that the app's prepared statements are planned with their values; but that also holds
 * for the statements PostgreSQL prepares itself, above all the check of each foreign key
 * for each inserted row, which is then planned anew every time. For a transaction that
 * inserts many rows with foreign keys (a batch of revenue events: ~9 checks per event) that
 * planning was most of PostgreSQL's time per row. The app's own statements of the
 * transaction may then get generic plans after five runs, where PostgreSQL finds them as
 * cheap: use it for transactions whose statements are index look-ups by key and inserts.
 *
 * The trap (issue 26): a connection keeps the generic plan it chose while a table was
 * small. Without an ANALYZE since (autovacuum off, or a long bulk run into new tables),
 * a foreign-key check against a table that grows then stays a sequential scan: the
 * billing run's journal entries took 4 ms per statement at 10,000 invoices instead of
 * 0.7 ms, so the billing transactions no longer use this.
 */
export async function useCachedPlans(trx: Trx): Promise<void> {
  await sql`select set_config('plan_cache_mode', 'auto', true)`.execute(trx);
}
