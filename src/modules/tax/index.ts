// The tax office's view (issue 28): the Umsatzsteuer-Voranmeldung's figures from the books.

export { type Filing, type FilingRhythm, filingOf, lastEndedPeriod, nationwideHolidays, nextWorkingDay, RHYTHM_DE, zmRhythm } from './filing.ts';
export { GobdExportError, type GobdExportOptions, type GobdExportSummary, writeGobdExport } from './gobd/gobd-export.ts';
export { directorySink, type ExportSink, zipSink } from './gobd/gobd-sink.ts';
export { type TaxPeriod, TaxPeriodError, taxPeriod } from './tax-period.ts';
export { type UstvaDocument, type UstvaLine, type UstvaReport, ustvaReport, wholeEuros } from './ustva.ts';
export { verfahrensdokumentation } from './vd/verfahrensdokumentation.ts';
export { ZM_CSV_HEADER, ZM_CSV_VERSION, ZM_MAX_ROWS, type ZmReport, type ZmRow, zmCsv, zmFileName, zmReport, zmVatIdProblems } from './zm.ts';
