// Why a person-side step of a statement was refused: a kind the app words in German, and
// for some kinds German details for a person.

/** Why a step was refused (the app words it in German by this code). */
export type StatementRefusal =
  | 'not_found'
  | 'draft_not_sendable'
  | 'not_sendable'
  | 'no_email'
  | 'mail_failed'
  | 'cancellation_not_cancellable'
  | 'paid_not_cancellable'
  | 'not_self_billing'
  | 'not_objectable'
  | 'paid_not_objectable'
  | 'not_payable'
  | 'einvoice_contact_missing'
  | 'partner_invoice_missing'
  | 'period_locked';

export class StatementError extends Error {
  /**
   * The refusal's kind; `reason` carries German words for a person where the kind alone does
   * not say enough: the mail server's for mail_failed, what the partner's XRechnung lacks for
   * einvoice_contact_missing.
   */
  readonly refusal: StatementRefusal | null;
  readonly reason: string | null;
  constructor(message: string, refusal: StatementRefusal | null = null, reason: string | null = null) {
    super(message);
    this.name = 'StatementError';
    this.refusal = refusal;
    this.reason = reason;
  }
}
