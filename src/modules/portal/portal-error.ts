// Why a step of the partner portal's accounts was refused: a code the app and the portal
// word in German (and English), the message for logs and the command line.

export type PortalRefusal =
  /** The partner is not one of the company's. */
  | 'partner_not_found'
  | 'invalid_email'
  /** The address belongs to another partner's account (one account per address). */
  | 'email_taken'
  /** The partner's account with this address is set up and active already. */
  | 'already_active'
  /** The link is unknown, used, superseded by a newer one, or past its 7 days. */
  | 'invitation_invalid'
  | 'password_too_short'
  | 'password_mismatch'
  | 'account_not_found';

export class PortalError extends Error {
  readonly refusal: PortalRefusal;
  constructor(message: string, refusal: PortalRefusal) {
    super(message);
    this.name = 'PortalError';
    this.refusal = refusal;
  }
}
