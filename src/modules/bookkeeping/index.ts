// Bookkeeping: the booking journal (SKR03/SKR04) and the DATEV Buchungsstapel export.
export { ACCOUNT_PLANS, type AccountPlan, accountPlan, creditorAccount, debtorAccount } from './accounts.ts';
export { type BookingKnowns, type BookingResult, bookInvoice, invoiceJournalLines, newInvoiceBookingWrites } from './book-invoice.ts';
export { bookPartnerInvoice, type PartnerInvoiceToBook, partnerInvoiceJournalLines, reversePartnerInvoice, vatDatevDerives } from './book-partner-invoice.ts';
export { bookPaymentReversals, bookPayments, type PaymentToBook, paymentJournalLines, reversalJournalLines } from './book-payments.ts';
export { bookPayout, MONEY_IN_TRANSIT, type PayoutToBook, payoutJournalLines } from './book-payout.ts';
export { bookStatement, newStatementBookingWrites, statementJournalLines } from './book-statement.ts';
export { BookkeepingError, type BookkeepingErrorCode } from './bookkeeping-error.ts';
export {
  createDatevExport,
  type DatevExport,
  type DatevExportOptions,
  type DatevWarningCode,
  datevFileName,
  exportDatevBuchungsstapel,
  fiscalYearStartOf,
} from './export-datev.ts';
export { lockedUntil } from './journal.repository.ts';
export { assertBalanced, type JournalLine, mirror } from './journal.ts';
export { listPeriodLocks, lockPeriod, type PeriodLockList, type PeriodLockResult } from './lock-period.ts';
