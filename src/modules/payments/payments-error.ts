/**
 * A refusal of the bank import (the file itself is refused with a StatementError):
 * - `company_not_found`: no company with this id
 * - `period_locked`: a payment would be booked into a locked accounting period
 * - `entries_disagree`: the entries stored before for bookings of this file differ from
 *   what the file says (the file's balances would not add up to what Kontor holds)
 * Nothing is written in any case.
 */
export type BankImportErrorCode = 'company_not_found' | 'period_locked' | 'entries_disagree';

export class BankImportError extends Error {
  readonly code: BankImportErrorCode;

  constructor(code: BankImportErrorCode, message: string) {
    super(message);
    this.name = 'BankImportError';
    this.code = code;
  }
}
