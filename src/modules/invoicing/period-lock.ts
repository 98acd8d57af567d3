import type { Trx } from '../../db/transaction.ts';
import { AppError } from '../../shared/errors.ts';
import { formatDate } from '../../shared/german-format.ts';
import { lockedUntil as readLockedUntil } from '../bookkeeping/index.ts';

/** Refuses a booking dated inside a locked accounting period (GoBD: closed periods stay closed); returns the lock read. */
export async function assertPeriodOpen(trx: Trx, companyId: string, date: string): Promise<string | null> {
  const lockedUntil = await readLockedUntil(trx, companyId);
  if (lockedUntil && date <= lockedUntil) {
    throw new AppError('period_locked', {}, `Die Buchungsperiode ist bis ${formatDate(lockedUntil)} gesperrt; Korrekturen gehören in die offene Periode.`);
  }
  return lockedUntil;
}
