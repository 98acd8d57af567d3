import { sql } from 'kysely';
import type { Trx } from '../../db/transaction.ts';
import { AppError } from '../../shared/errors.ts';
import { formatDate } from '../../shared/german-format.ts';

/** Refuses a booking dated inside a locked accounting period (GoBD: closed periods stay closed). */
export async function assertPeriodOpen(trx: Trx, companyId: string, date: string): Promise<void> {
  const lock = await sql<{ locked_until: string }>`select locked_until from period_locks where company_id = ${companyId}`.execute(trx);
  const lockedUntil = lock.rows[0]?.locked_until;
  if (lockedUntil && date <= lockedUntil) {
    throw new AppError('period_locked', {}, `Die Buchungsperiode ist bis ${formatDate(lockedUntil)} gesperrt; Korrekturen gehören in die offene Periode.`);
  }
}
