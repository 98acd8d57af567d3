// A filing period of the Umsatzsteuer-Voranmeldung and the Zusammenfassende Meldung: a
// calendar month ("2026-11") or quarter ("2026-Q4"), as calendar dates of the company; or
// a calendar year ("2026"): the sums of the annual return, and the period of a company
// exempted from advance returns.

export type TaxPeriod = { kind: 'month' | 'quarter' | 'year'; label: string; from: string; to: string };

export class TaxPeriodError extends Error {
  constructor(text: string) {
    super(`not a filing period: ${text} (a month like 2026-11, a quarter like 2026-Q4 or a year like 2026)`);
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
  const year = /^(\d{4})$/.exec(trimmed);
  if (year) return { kind: 'year', label: trimmed, from: `${trimmed}-01-01`, to: `${trimmed}-12-31` };
  throw new TaxPeriodError(text);
}
