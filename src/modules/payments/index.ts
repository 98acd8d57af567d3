// Payments: bank statement import (camt.053, MT940), matching credits to invoices, and
// what a payment changes (invoice state, booking, customer credit, events).
export { type BankImportResult, type BankImportTotals, importBankStatement } from './import-bank-statement.ts';
export { invoiceNumberFinder, invoiceNumberRegex, normalizeInvoiceNumber } from './invoice-number-finder.ts';
export { parseStatement } from './parse-statement.ts';
export { BankImportError, type BankImportErrorCode } from './payments-error.ts';
export type { EntryOutcome, PaymentOutcome, TransactionOutcome } from './plan-import.ts';
export { type ParsedEntry, type ParsedStatement, type ParsedTransaction, StatementError } from './statement.ts';
