import type { Transaction } from 'kysely';
import { AppError, RetryTransaction } from '../shared/errors.ts';
import type { Database } from './connection.ts';
import type { DB } from './schema.ts';

export type Trx = Transaction<DB>;

// PostgreSQL codes that mean "another transaction got there first; run again".
const RETRYABLE = new Set(['40001', '40P01', '23505']);
const MAX_ATTEMPTS = 5;

// A prepared statement whose result columns a schema change altered (migrations run by
// another process): it is prepared afresh when the transaction runs again.
const STALE_PLAN = 'cached plan must not change result type';

function isRetryable(error: unknown): boolean {
  if (error instanceof RetryTransaction) return true;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return typeof code === 'string' && (RETRYABLE.has(code) || (code === '0A000' && message === STALE_PLAN));
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
