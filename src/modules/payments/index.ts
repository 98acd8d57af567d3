// Payments: bank statement import (camt.052/053/054, MT940/MT942, ZIP archives of them), matching credits to invoices, and
// what a payment changes (invoice state, booking, customer credit, events); debits that take money back from invoices
// (refunds, returns; issue 24) and the person's assignment of what is left over.
export { type AssignedTransaction, assignBankTransaction } from './assign-bank-transaction.ts';
export { AssignCreditError, type AssignedCredit, assignBankCredit } from './assign-credit.ts';
export { AssignDebitError, type AssignedDebit, assignBankDebit } from './assign-debit.ts';
export { type BankFileImport, importBankFile, type RefusedFile } from './import-bank-file.ts';
export { type BankImportResult, type BankImportTotals, importBankStatement } from './import-bank-statement.ts';
export { type ImportNote, type ImportNoteCode, type ImportNoteValues, noteText } from './import-notes.ts';
export { invoiceNumberFinder, invoiceNumberRegex, normalizeInvoiceNumber } from './invoice-number-finder.ts';
export { parseStatement } from './parse-statement.ts';
export { BankImportError, type BankImportErrorCode } from './payments-error.ts';
export type { EntryOutcome, PaymentOutcome, ReversalOutcome, TransactionOutcome } from './plan-import.ts';
export type { ReturnMark } from './return-mark.ts';
export { type ParsedEntry, type ParsedStatement, type ParsedTransaction, StatementError } from './statement.ts';
