import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { isCalendarDate } from '../../shared/dates.ts';
import { formatDate } from '../../shared/german-format.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { BookkeepingError } from './bookkeeping-error.ts';

// Accounting period locks (GoBD "Festschreibung"): nothing is booked on or before the
// lock date any more — no invoice, storno or payment (rule period_locked); corrections go
// into the open period. A lock is final: it only ever moves forward, and never past today
// (a period still running cannot be closed). Every lock set is kept in period_lock_history;
// a lock a person sets (the app, `--by`) is in the audit trail too, in the same transaction.

/** A lock refused (code `lock_refused`), with the reason in German for the app. */
export class PeriodLockRefused extends BookkeepingError {
  readonly de: string;
  constructor(message: string, de: string) {
    super('lock_refused', message);
    this.de = de;
  }
}

export type PeriodLockResult = {
  company_id: string;
  locked_until: string;
  previous_until: string | null;
  /** false when the period was locked up to that day already (nothing changed). */
  changed: boolean;
  locked_at: string;
};

export async function lockPeriod(
  db: Database,
  clock: Clock,
  input: { companyId: string; until: string; lockedBy?: string | null; actor?: Actor },
): Promise<PeriodLockResult> {
  const { companyId, until } = input;
  if (!isCalendarDate(until))
    throw new PeriodLockRefused(`the lock date must be a date YYYY-MM-DD, got ${until}`, 'Bitte ein gültiges Datum angeben, zum Beispiel 31.10.2026.');
  return inTransaction(db, async (trx) => {
    const company = await trx.selectFrom('companies').select(['id', 'timezone']).where('id', '=', companyId).executeTakeFirst();
    if (!company) throw new BookkeepingError('company_not_found', `no company ${companyId}`);
    const today = clock.today(company.timezone);
    if (until > today)
      throw new PeriodLockRefused(
        `cannot lock up to ${until}: that day lies in the future (today is ${today}); lock a period once it is over`,
        `Der ${formatDate(until)} liegt in der Zukunft (heute ist der ${formatDate(today)}). Ein Zeitraum lässt sich erst sperren, wenn er vorbei ist.`,
      );
    const current = await trx.selectFrom('period_locks').select('locked_until').where('company_id', '=', companyId).forUpdate().executeTakeFirst();
    const previous = current?.locked_until ?? null;
    const now = clock.now();
    if (previous !== null && until < previous)
      throw new PeriodLockRefused(
        `the period is locked up to ${previous} already; a lock is final and only moves forward (asked for ${until})`,
        `Der Buchungszeitraum ist bereits bis ${formatDate(previous)} gesperrt. Eine Sperre ist endgültig und lässt sich nur nach vorn verschieben, nicht auf den ${formatDate(until)} zurück.`,
      );
    if (previous === until) return { company_id: companyId, locked_until: until, previous_until: previous, changed: false, locked_at: now.toISOString() };
    await trx
      .insertInto('period_locks')
      .values({ company_id: companyId, locked_until: until, updated_at: now })
      .onConflict((oc) => oc.column('company_id').doUpdateSet({ locked_until: until, updated_at: now }))
      .execute();
    await trx
      .insertInto('period_lock_history')
      .values({
        company_id: companyId,
        locked_until: until,
        previous_until: previous,
        locked_at: now,
        locked_by: input.actor?.userId ?? input.lockedBy ?? null,
      })
      .execute();
    if (input.actor) {
      await recordAudit(trx, input.actor, now, {
        action: 'period.locked',
        subjectType: 'company',
        subjectId: companyId,
        before: { locked_until: previous },
        after: { locked_until: until },
      });
    }
    return { company_id: companyId, locked_until: until, previous_until: previous, changed: true, locked_at: now.toISOString() };
  });
}

export type PeriodLockList = {
  company_id: string;
  /** The last locked day, or null while nothing is locked. */
  locked_until: string | null;
  /** Every lock set, oldest first. */
  history: { locked_until: string; previous_until: string | null; locked_at: string; locked_by: string | null; locked_by_email: string | null }[];
};

export async function listPeriodLocks(db: Database, companyId: string): Promise<PeriodLockList> {
  const company = await db.selectFrom('companies').select('id').where('id', '=', companyId).executeTakeFirst();
  if (!company) throw new BookkeepingError('company_not_found', `no company ${companyId}`);
  const rows = await db
    .selectFrom('period_lock_history as h')
    .leftJoin('users as u', 'u.id', 'h.locked_by')
    .select(['h.locked_until', 'h.previous_until', 'h.locked_at', 'h.locked_by', 'u.email as locked_by_email'])
    .where('h.company_id', '=', companyId)
    .orderBy('h.locked_until')
    .execute();
  const history = rows.map((row) => ({ ...row, locked_at: new Date(row.locked_at).toISOString() }));
  const current = await db.selectFrom('period_locks').select('locked_until').where('company_id', '=', companyId).executeTakeFirst();
  return { company_id: companyId, locked_until: current?.locked_until ?? null, history };
}
