// The tax office's view (issue 28): the Umsatzsteuer-Voranmeldung's figures from the books.
export { type TaxPeriod, TaxPeriodError, taxPeriod } from './tax-period.ts';
export { type UstvaDocument, type UstvaLine, type UstvaReport, ustvaReport, wholeEuros } from './ustva.ts';
export { type ZmReport, type ZmRow, ZM_CSV_HEADER, ZM_CSV_VERSION, ZM_MAX_ROWS, zmCsv, zmFileName, zmReport, zmVatIdProblems } from './zm.ts';
