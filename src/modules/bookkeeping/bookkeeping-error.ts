/**
 * A refusal of the bookkeeping module. Codes:
 * - `invalid_document`: the document cannot be booked as it stands (signs, totals, accounts)
 * - `unbalanced`: the lines of an entry do not balance (a bug, never written)
 * - `already_booked`: the document id is booked with a different number
 * - `period_locked`: the entry date lies in a locked accounting period
 * - `invalid_range`: an export range is malformed or spans more than one fiscal year
 * - `not_exportable`: an entry cannot be expressed as DATEV bookings
 * - `company_not_found`: no company with this id
 * - `lock_refused`: a period lock that would lie after today or move an existing lock back
 */
export type BookkeepingErrorCode =
  | 'invalid_document'
  | 'unbalanced'
  | 'already_booked'
  | 'period_locked'
  | 'invalid_range'
  | 'not_exportable'
  | 'company_not_found'
  | 'lock_refused';

export class BookkeepingError extends Error {
  readonly code: BookkeepingErrorCode;
  /** For `period_locked`: the last day of the locked period (YYYY-MM-DD), for words to a person. */
  readonly lockedUntil: string | null;

  constructor(code: BookkeepingErrorCode, message: string, lockedUntil: string | null = null) {
    super(message);
    this.name = 'BookkeepingError';
    this.code = code;
    this.lockedUntil = lockedUntil;
  }
}
