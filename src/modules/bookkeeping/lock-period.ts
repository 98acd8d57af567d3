import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { isCalendarDate } from '../../shared/dates.ts';
import { BookkeepingError } from './bookkeeping-error.ts';

// Accounting period locks (GoBD "Festschreibung"): nothing is booked on or before the
// lock date any more — no invoice, storno or payment (rule period_locked); corrections go
// into the open period. A lock is final: it only ever moves forward, and never past today
// (a period still running cannot be closed). Every lock set is kept in period_lock_history.

export type PeriodLockResult = {
  company_id: string;
  locked_until: string;
  previous_until: string | null;
  /** false when the period was locked up to that day already (nothing changed). */
  changed: boolean;
  locked_at: string;
};

export async function lockPeriod(db: Database, clock: Clock, input: { companyId: string; until: string; lockedBy?: string | null }): Promise<PeriodLockResult> {
  const { companyId, until } = input;
  if (!isCalendarDate(until)) throw new BookkeepingError('lock_refused', `the lock date must be a date YYYY-MM-DD, got ${until}`);
  return inTransaction(db, async (trx) => {
    const company = await trx.selectFrom('companies').select(['id', 'timezone']).where('id', '=', companyId).executeTakeFirst();
    if (!company) throw new BookkeepingError('company_not_found', `no company ${companyId}`);
    const today = clock.today(company.timezone);
    if (until > today)
      throw new BookkeepingError('lock_refused', `cannot lock up to ${until}: that day lies in the future (today is ${today}); lock a period once it is over`);
    const current = await trx.selectFrom('period_locks').select('locked_until').where('company_id', '=', companyId).forUpdate().executeTakeFirst();
    const previous = current?.locked_until ?? null;
    const now = clock.now();
    if (previous !== null && until < previous)
      throw new BookkeepingError('lock_refused', `the period is locked up to ${previous} already; a lock is final and only moves forward (asked for ${until})`);
    if (previous === until) return { company_id: companyId, locked_until: until, previous_until: previous, changed: false, locked_at: now.toISOString() };
    await trx
      .insertInto('period_locks')
      .values({ company_id: companyId, locked_until: until, updated_at: now })
      .onConflict((oc) => oc.column('company_id').doUpdateSet({ locked_until: until, updated_at: now }))
      .execute();
    await trx
      .insertInto('period_lock_history')
      .values({ company_id: companyId, locked_until: until, previous_until: previous, locked_at: now, locked_by: input.lockedBy ?? null })
      .execute();
    return { company_id: companyId, locked_until: until, previous_until: previous, changed: true, locked_at: now.toISOString() };
  });
}

export type PeriodLockList = {
  company_id: string;
  /** The last locked day, or null while nothing is locked. */
  locked_until: string | null;
  /** Every lock set, oldest first. */
  history: { locked_until: string; previous_until: string | null; locked_at: string; locked_by: string | null }[];
};

export async function listPeriodLocks(db: Database, companyId: string): Promise<PeriodLockList> {
  const company = await db.selectFrom('companies').select('id').where('id', '=', companyId).executeTakeFirst();
  if (!company) throw new BookkeepingError('company_not_found', `no company ${companyId}`);
  const rows = await db
    .selectFrom('period_lock_history')
    .select(['locked_until', 'previous_until', 'locked_at', 'locked_by'])
    .where('company_id', '=', companyId)
    .orderBy('locked_until')
    .execute();
  const history = rows.map((row) => ({ ...row, locked_at: new Date(row.locked_at).toISOString() }));
  const current = await db.selectFrom('period_locks').select('locked_until').where('company_id', '=', companyId).executeTakeFirst();
  return { company_id: companyId, locked_until: current?.locked_until ?? null, history };
}
