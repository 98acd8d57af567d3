/**
 * A refusal of the bank import (the file itself is refused with a StatementError):
 * - `company_not_found`: no company with this id
 * - `period_locked`: a payment would be booked into a locked accounting period
 * Nothing is written in either case.
 */
export type BankImportErrorCode = 'company_not_found' | 'period_locked';

export class BankImportError extends Error {
  readonly code: BankImportErrorCode;

  constructor(code: BankImportErrorCode, message: string) {
    super(message);
    this.name = 'BankImportError';
    this.code = code;
  }
}
