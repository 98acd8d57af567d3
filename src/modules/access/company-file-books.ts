import { companyLawProblems, normaliseRegisterNumber } from '../../shared/company-law.ts';
import { isCalendarDate } from '../../shared/dates.ts';

// The company file's company-law details and books settings (issue 10): register court and
// number, managing directors, DATEV consultant and client numbers, fiscal-year start, the EU
// distance-selling flag. Checked here, after the schema: each returns its problems (the
// key, an English and a German sentence) for the CompanyFileError.

type FileValues = Record<string, unknown>;

/** A problem of a company file: the key it concerns, an English sentence (command line) and a German one (the app). */
export type CompanyFileProblem = { key: string; en: string; de: string };

/**
 * DATEV Beraternummer: 4 to 7 digits, at least 1001; Mandantennummer: 1 to 5 digits, at
 * least 1 (german-rules §6.4). Given as a JSON number or a string of digits.
 */
function datevNumber(value: unknown, key: string, digits: [number, number], min: number, problems: CompanyFileProblem[], de: string): number | null {
  if (value === null) return null;
  const text = typeof value === 'number' ? String(value) : (value as string).trim();
  const pattern = new RegExp(`^[0-9]{${digits[0]},${digits[1]}}$`);
  if (!pattern.test(text) || Number(text) < min) {
    problems.push({ key, en: `must be ${digits[0]} to ${digits[1]} digits, at least ${min} (the number DATEV gave)`, de });
    return null;
  }
  return Number(text);
}

/** "MM-DD" that names a day of every year (29 February does not). */
function isFiscalYearStart(value: string): boolean {
  return value !== '02-29' && isCalendarDate(`2025-${value}`);
}

/** Reads the keys of this group that the file sets into `columns`; pushes problems. */
export function readBooksAndLaw(file: FileValues, columns: FileValues, problems: CompanyFileProblem[]): void {
  if (file.datev_consultant_number !== undefined)
    columns.datev_consultant_number = datevNumber(
      file.datev_consultant_number,
      'datev_consultant_number',
      [4, 7],
      1001,
      problems,
      'Die Beraternummer hat 4 bis 7 Ziffern und ist mindestens 1001 (die Nummer, die DATEV vergeben hat).',
    );
  if (file.datev_client_number !== undefined)
    columns.datev_client_number = datevNumber(
      file.datev_client_number,
      'datev_client_number',
      [1, 5],
      1,
      problems,
      'Die Mandantennummer hat 1 bis 5 Ziffern und ist mindestens 1.',
    );
  if (typeof file.fiscal_year_start === 'string' && !isFiscalYearStart(file.fiscal_year_start))
    problems.push({
      key: 'fiscal_year_start',
      en: 'must be the first day of the fiscal year as MM-DD, for example 01-01 or 07-01',
      de: 'Bitte den ersten Tag des Wirtschaftsjahres als MM-TT angeben, zum Beispiel 01-01 oder 07-01 (nicht der 29. Februar).',
    });
  if (file.eu_distance_sales_threshold_exceeded !== undefined) {
    columns.eu_distance_threshold_exceeded = file.eu_distance_sales_threshold_exceeded;
    delete columns.eu_distance_sales_threshold_exceeded;
  }
  if (typeof file.register_court === 'string') columns.register_court = file.register_court.trim();
  if (typeof file.register_number === 'string') {
    // A number that is not a register number stays as sent; companyLawProblems names it.
    columns.register_number = normaliseRegisterNumber(file.register_number) ?? file.register_number.trim();
  }
  if (file.managing_directors !== undefined) {
    const names = ((file.managing_directors as string[] | null) ?? []).map((name) => name.trim().replace(/\s+/g, ' '));
    if (names.some((name) => name === '')) problems.push({ key: 'managing_directors', en: 'a name is empty', de: 'Ein Name ist leer.' });
    columns.managing_directors = names;
  }
  if (typeof file.account_holder === 'string') columns.account_holder = file.account_holder.trim().replace(/\s+/g, ' ');
}

export type CompanyLawColumns = {
  legal_form: string | null;
  register_court: string | null;
  register_number: string | null;
  managing_directors: readonly string[];
};

/** The company-law problems of the company as it would be after the change. */
export function companyLawLines(company: CompanyLawColumns): CompanyFileProblem[] {
  return companyLawProblems(company);
}
