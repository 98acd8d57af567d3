import type { Database } from '../../db/connection.ts';
// A filing period of the Umsatzsteuer-Voranmeldung and the Zusammenfassende Meldung: a
// calendar month ("2026-11") or quarter ("2026-Q4"), as calendar dates of the company.

export type TaxPeriod = { kind: 'month' | 'quarter'; label: string; from: string; to: string };

export class TaxPeriodError extends Error {
  constructor(text: string) {
    super(`not a filing period: ${text} (a month like 2026-11 or a quarter like 2026-Q4)`);
    this.name = 'TaxPeriodError';
  }
}

const pad = (n: number) => String(n).padStart(2, '0');
const lastDay = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

export function taxPeriod(text: string): TaxPeriod {
  const trimmed = text.trim();
  const month = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(trimmed);
  if (month) {
    const y = Number(month[1]);
    const m = Number(month[2]);
    return { kind: 'month', label: trimmed, from: `${y}-${pad(m)}-01`, to: `${y}-${pad(m)}-${pad(lastDay(y, m))}` };
  }
  const quarter = /^(\d{4})-Q([1-4])$/i.exec(trimmed);
  if (quarter) {
    const y = Number(quarter[1]);
    const q = Number(quarter[2]);
    const first = (q - 1) * 3 + 1;
    return { kind: 'quarter', label: `${y}-Q${q}`, from: `${y}-${pad(first)}-01`, to: `${y}-${pad(first + 2)}-${pad(lastDay(y, first + 2))}` };
  }
  throw new TaxPeriodError(text);
}

/** What a return needs of the company: its chart, § 19 status, and whether the period is locked (filed). */
export async function companyForReturn(db: Database, companyId: string, period: TaxPeriod) {
  const company = await db
    .selectFrom('companies as c')
    .leftJoin('period_locks as l', 'l.company_id', 'c.id')
    .select(['c.chart', 'c.small_business', 'l.locked_until'])
    .where('c.id', '=', companyId)
    .executeTakeFirst();
  if (!company) throw new Error(`no company ${companyId}`);
  const lockedUntil = company.locked_until ?? null;
  return { chart: company.chart, smallBusiness: company.small_business, lockedUntil, filed: lockedUntil !== null && lockedUntil >= period.to };
}
