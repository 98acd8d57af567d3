import type { Database } from '../../db/connection.ts';
import type { VatReturnPeriod } from '../../db/schema.ts';
import { addDays } from '../../shared/dates.ts';
import { type TaxPeriod, taxPeriod } from './tax-period.ts';

// When the company files (issue 28 §1, "the company's filing period"): its Voranmeldungs-
// zeitraum is a company setting (vat_return_period: monthly, quarterly, or annual when the
// tax office exempted it from advance returns; vat_return_extension: a Dauerfrist-
// verlängerung). From it: which period a return is due for, and when.
//
// - The Voranmeldung is due on the 10th day after the period (§ 18 Abs. 1 UStG), one month
//   later with a Dauerfristverlängerung (§§ 46–48 UStDV).
// - The Zusammenfassende Meldung is due on the 25th day after the period (§ 18a Abs. 1
//   UStG); the Dauerfristverlängerung does not apply to it.
// - A deadline on a Saturday, Sunday or public holiday moves to the next working day
//   (§ 108 Abs. 3 AO). Kontor knows the nationwide holidays only: where a Land has one of
//   its own on the day, the date shown is a day early, never late.

export type FilingRhythm = VatReturnPeriod;

export type Filing = {
  rhythm: FilingRhythm;
  extension: boolean;
  /** The period is one the company files a Voranmeldung for (month for monthly, quarter for quarterly filers). */
  is_filing_period: boolean;
  /** Last day to file the period's Voranmeldung; null for a year (the annual return has its own deadline). */
  ustva_due: string | null;
  /** Last day to file the period's Zusammenfassende Meldung; null for a year (the ZM is monthly or quarterly). */
  zm_due: string | null;
};

const KIND_OF: Record<FilingRhythm, TaxPeriod['kind']> = { monthly: 'month', quarterly: 'quarter', annual: 'year' };

/** The rhythm in the words of a German return (the command line, the Verfahrensdokumentation). */
export const RHYTHM_DE: Record<FilingRhythm, string> = {
  monthly: 'monatlich',
  quarterly: 'vierteljährlich',
  annual: 'jährlich (von Voranmeldungen befreit)',
};

/** How often the ZM is due: services may always be reported quarterly (§ 18a Abs. 1 UStG); a monthly filer reports monthly. */
export const zmRhythm = (rhythm: FilingRhythm): FilingRhythm => (rhythm === 'monthly' ? 'monthly' : 'quarterly');

/** Easter Sunday of a year (Gregorian calendar; the anonymous algorithm of 1876). */
function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The public holidays of every Land (Neujahr, Karfreitag, Ostermontag, 1. Mai, Himmelfahrt, Pfingstmontag, 3. Oktober, Weihnachten). */
export function nationwideHolidays(year: number): string[] {
  const easter = easterSunday(year);
  return [
    `${year}-01-01`,
    addDays(easter, -2),
    addDays(easter, 1),
    `${year}-05-01`,
    addDays(easter, 39),
    addDays(easter, 50),
    `${year}-10-03`,
    `${year}-12-25`,
    `${year}-12-26`,
  ].sort();
}

/** The day itself, or the next day that is no Saturday, Sunday or nationwide holiday (§ 108 Abs. 3 AO). */
export function nextWorkingDay(date: string): string {
  let day = date;
  for (;;) {
    const weekday = new Date(`${day}T12:00:00Z`).getUTCDay();
    if (weekday !== 0 && weekday !== 6 && !nationwideHolidays(Number(day.slice(0, 4))).includes(day)) return day;
    day = addDays(day, 1);
  }
}

/** The given day of the month `months` after the month of `date`. */
function dayOfMonthAfter(date: string, months: number, day: number): string {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7)) - 1 + months;
  const y = year + Math.floor(month / 12);
  const m = (month % 12) + 1;
  return `${y}-${String(m).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

export function filingOf(period: TaxPeriod, rhythm: FilingRhythm, extension: boolean): Filing {
  const yearly = period.kind === 'year';
  return {
    rhythm,
    extension,
    is_filing_period: KIND_OF[rhythm] === period.kind,
    ustva_due: yearly ? null : nextWorkingDay(dayOfMonthAfter(period.to, extension ? 2 : 1, 10)),
    zm_due: yearly ? null : nextWorkingDay(dayOfMonthAfter(period.to, 1, 25)),
  };
}

/** The company's last period that has ended by `today`: the previous month, quarter or year. */
export function lastEndedPeriod(rhythm: FilingRhythm, today: string): TaxPeriod {
  const year = Number(today.slice(0, 4));
  const month = Number(today.slice(5, 7));
  if (rhythm === 'annual') return taxPeriod(String(year - 1));
  if (rhythm === 'quarterly') {
    const quarter = Math.floor((month - 1) / 3);
    return quarter === 0 ? taxPeriod(`${year - 1}-Q4`) : taxPeriod(`${year}-Q${quarter}`);
  }
  return month === 1 ? taxPeriod(`${year - 1}-12`) : taxPeriod(`${year}-${String(month - 1).padStart(2, '0')}`);
}

/** What a return needs of the company: its chart, § 19 status, whether the period is locked (filed), and when it files. */
export async function companyForReturn(db: Database, companyId: string, period: TaxPeriod) {
  const company = await db
    .selectFrom('companies as c')
    .leftJoin('period_locks as l', 'l.company_id', 'c.id')
    .select(['c.chart', 'c.small_business', 'c.vat_return_period', 'c.vat_return_extension', 'l.locked_until'])
    .where('c.id', '=', companyId)
    .executeTakeFirst();
  if (!company) throw new Error(`no company ${companyId}`);
  const lockedUntil = company.locked_until ?? null;
  const filing = filingOf(period, company.vat_return_period, company.vat_return_extension);
  return { chart: company.chart, smallBusiness: company.small_business, lockedUntil, filed: lockedUntil !== null && lockedUntil >= period.to, filing };
}
