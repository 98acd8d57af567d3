// The tax office's view (issue 28): the Umsatzsteuer-Voranmeldung's figures from the books.
export { type TaxPeriod, TaxPeriodError, taxPeriod } from './tax-period.ts';
export { type UstvaDocument, type UstvaLine, type UstvaReport, ustvaReport, wholeEuros } from './ustva.ts';
